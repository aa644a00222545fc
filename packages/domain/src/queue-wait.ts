/** Assumed processing time of a job while none has finished yet. */
export const DEFAULT_JOB_SECONDS = 5;

/**
 * Seconds until a job is done: the jobs ahead of it and itself, at the recent mean processing time, shared among
 * the workers' slots. Rounded up: an estimate of 0 would read as "already done".
 */
export function estimatedSeconds(ahead: number, meanSeconds: number | null, workerSlots: number): number {
  const perJob = meanSeconds ?? DEFAULT_JOB_SECONDS;
  return Math.ceil(((ahead + 1) * perJob) / Math.max(1, workerSlots));
}
