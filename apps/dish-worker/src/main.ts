import { offlineModel, offlineVision, modelFromSettings } from '@nutrition/ai';
import { runWorker } from '@nutrition/worker';
import { offlineModelFeedRepository } from '@nutrition/db/repositories';
import { dishRecognizer } from './recognize-dish.ts';

/** The dish recognition worker: a separate process, scaled by replica count. */
await runWorker('dish', (sql, log, settings) => {
  const catalog = offlineModelFeedRepository(sql);
  const remote = modelFromSettings(settings, log);
  const vision = remote ?? offlineVision(catalog);
  const model = remote ?? offlineModel(catalog);
  return dishRecognizer(sql, vision, model);
});
