/** Assumed processing time of a job while none has finished yet. */
export const DEFAULT_JOB_SECONDS = 5;

/**
 * Seconds until a job is done: the jobs ahead of it leave in rounds of `workerSlots` at a time, then the job itself
 * takes one processing time. A job alone in the queue waits one whole processing time however many slots are idle.
 * Rounded up: an estimate of 0 would read as "already done".
 */
export function estimatedSeconds(ahead: number, meanSeconds: number | null, workerSlots: number): number {
  const perJob = meanSeconds ?? DEFAULT_JOB_SECONDS;
  const rounds = Math.floor(Math.max(0, ahead) / Math.max(1, workerSlots)) + 1;
  return Math.max(1, Math.ceil(rounds * perJob));
}
