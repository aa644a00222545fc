import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';

/** Bodies above this size hold several megabytes while they are read and decoded: those take a slot. */
export const LARGE_UPLOAD_BYTES = 1024 * 1024;

/**
 * At most `max` large photo uploads read and decoded at once in this process; a request beyond that is answered
 * `503 busy` before its body is read, so a burst of maximum-size submissions cannot fill the pod's memory. A body
 * without a declared length counts as large.
 */
export function uploadSlots(max: number) {
  let inUse = 0;
  const holders = new WeakSet<FastifyRequest>();
  return {
    acquire(request: FastifyRequest) {
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && length <= LARGE_UPLOAD_BYTES) return;
      if (inUse >= max)
        throw new HttpError(503, 'busy', 'Too many photo uploads are being processed, retry shortly', undefined, 1);
      inUse++;
      holders.add(request);
    },
    /** Called when the request ends in any way (answered, failed or aborted); only its first call counts. */
    release(request: FastifyRequest) {
      if (holders.delete(request)) inUse--;
    },
    get inUse() {
      return inUse;
    },
  };
}
