import { modelJobError } from '@nutrition/ai';
import type { RecognitionKind } from './queues.ts';
import type { JobOutcome } from './worker-loop.ts';
import type { recognitionRepository, StartedJob } from '@nutrition/db/repositories';

export interface RecognitionSteps<Answer> {
  /** Stored as the job's error when its photos were purged before it ran. */
  expiredMessage: string;
  /** Asks the vision model; a model error ends the job failed with its code, anything else is thrown for a retry. */
  recognise: (job: StartedJob) => Promise<Answer>;
  /** What the model's answer becomes in the job's result; a model error here ends the job failed as well. */
  result: (job: StartedJob, answer: Answer) => Promise<unknown>;
}

/**
 * The course every recognition job takes, whichever worker runs it: start, photos, model, result. `signal` is the
 * worker's stop: a model call it aborted is thrown, not stored, so pg-boss hands the job to another worker. An
 * outcome that arrives after the job was started again or ended elsewhere is not stored ('skipped').
 */
export async function runRecognitionJob<Answer>(
  jobs: ReturnType<typeof recognitionRepository>,
  kind: RecognitionKind,
  jobId: string,
  steps: RecognitionSteps<Answer>,
  signal?: AbortSignal,
): Promise<JobOutcome> {
  const job = await jobs.start(kind, jobId);
  if (!job) return 'skipped';
  const finish = async (outcome: Parameters<typeof jobs.finish>[2], stored: 'done' | 'failed') =>
    (await jobs.finish(kind, jobId, outcome, job.attempt)) ? stored : 'skipped';
  if (job.images.length === 0)
    return finish({ error: { code: 'images_expired', message: steps.expiredMessage } }, 'failed');
  let result: unknown;
  try {
    // The result may ask a model too (the dish worker estimates the macros of a dish it has not seen).
    result = await steps.result(job, await steps.recognise(job));
  } catch (err) {
    const error = modelJobError(err);
    // Stopped mid-call (a deploy), the model did not fail: the job is retried elsewhere rather than ended failed.
    if (!error || signal?.aborted) throw err;
    return finish({ error }, 'failed');
  }
  return finish({ result }, 'done');
}
