import { offlineVision, openAiFromEnv } from '@nutrition/ai';
import { runWorker } from '@nutrition/worker';
import { offlineModelFeedRepository } from '@nutrition/db/repositories';
import { productRecognizer } from './recognize-products.ts';

/** The receipt and product-photo recognition worker: a separate process, scaled by replica count. */
await runWorker('product', (sql, log) => {
  const catalog = offlineModelFeedRepository(sql);
  const vision = openAiFromEnv(process.env, log) ?? offlineVision(catalog);
  return productRecognizer(sql, vision);
});
