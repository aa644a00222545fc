import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '@nutrition/db';
import { idempotencyRepository } from '@nutrition/db/repositories';
import { conflict, validationFailed } from './errors.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;
/** How long a retry waits for the first attempt with its key to finish. */
const WAIT_MS = 5000;
const LOCK_NOT_AVAILABLE = '55P03';

/** A stable fingerprint of what a request asks for: the same body gives the same hash. */
export function fingerprint(...parts: (string | Buffer | unknown)[]): string {
  const hash = createHash('sha256');
  for (const part of parts)
    hash
      .update(Buffer.isBuffer(part) ? part : typeof part === 'string' ? part : JSON.stringify(part ?? null))
      .update('\0');
  return hash.digest('hex');
}

/**
 * Runs a creation in one transaction, at most once per `Idempotency-Key` (per user and route): the stored response is
 * written in the transaction of the effect, so a retry with the same key and body gets exactly the first response;
 * the same key with another body is `409`; a first attempt that fails (or a crash) stores nothing and leaves nothing
 * locked. A retry that arrives while the first attempt runs waits for it (on a lock, not by polling). Without the
 * header the request simply runs: in a transaction, or on the pool when `inTransaction` is false (a create of one
 * statement saves the BEGIN and COMMIT round trips).
 */
export async function idempotent(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  requestHash: () => string,
  run: (tx: Queryable) => Promise<{ status: number; body: unknown }>,
  inTransaction = true,
) {
  const key = request.headers['idempotency-key'];
  if (key === undefined) {
    const { status, body } = inTransaction ? await app.transaction(run) : await run(app.sql);
    return reply.status(status).send(body);
  }
  if (typeof key !== 'string' || !KEY.test(key))
    throw validationFailed('/headers/idempotency-key', 'must be 1-255 visible ASCII characters');
  const userId = request.user.id;
  const route = request.routeOptions.url ?? request.url;
  const hash = requestHash();
  const outcome = await app
    .transaction(async (tx) => {
      const keys = idempotencyRepository(tx);
      await keys.lock(userId, route, key, WAIT_MS);
      const stored = await keys.find(userId, route, key);
      if (stored) {
        if (stored.request_hash !== hash)
          throw conflict('This Idempotency-Key was used with another request', 'idempotency_key_reused');
        return { replayed: true, status: stored.status_code, body: stored.response };
      }
      const { status, body } = await run(tx);
      await keys.store(userId, route, key, hash, status, body);
      return { replayed: false, status, body };
    })
    .catch((err: { code?: string }) => {
      if (err.code === LOCK_NOT_AVAILABLE)
        throw conflict('A request with this Idempotency-Key is still in progress', 'idempotency_request_in_progress');
      throw err;
    });
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  return reply.status(outcome.status).send(outcome.body);
}
