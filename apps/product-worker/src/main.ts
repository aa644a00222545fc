import { offlineVision, modelFromSettings } from '@nutrition/ai';
import { runWorker } from '@nutrition/worker';
import { offlineModelFeedRepository } from '@nutrition/db/repositories';
import { productRecognizer } from './recognize-products.ts';

/** The receipt and product-photo recognition worker: a separate process, scaled by replica count. */
await runWorker('product', (sql, log, settings) => {
  const catalog = offlineModelFeedRepository(sql);
  const vision = modelFromSettings(settings, log) ?? offlineVision(catalog);
  return productRecognizer(sql, vision);
});
