import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyRepository } from '@nutrition/db/repositories';
import { conflict, validationFailed } from './errors.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;
const WAIT_MS = 5000;

/** A stable fingerprint of what a request asks for: the same body gives the same hash. */
export function fingerprint(...parts: (string | Buffer | unknown)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(Buffer.isBuffer(part) ? part : typeof part === 'string' ? part : JSON.stringify(part ?? null)).update('\0');
  return hash.digest('hex');
}

/**
 * Runs a creation at most once per `Idempotency-Key` (per user and route): a retry with the same key and body gets
 * the first response; the same key with another body is `409`; without the header the request simply runs. A first
 * attempt that fails frees the key.
 */
export async function idempotent(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  requestHash: () => string,
  run: () => Promise<{ status: number; body: unknown }>,
) {
  const key = request.headers['idempotency-key'];
  if (key === undefined) {
    const { status, body } = await run();
    return reply.status(status).send(body);
  }
  if (typeof key !== 'string' || !KEY.test(key)) throw validationFailed('/headers/idempotency-key', 'must be 1-255 visible ASCII characters');
  const repo = idempotencyRepository(app.sql);
  const route = request.routeOptions.url ?? request.url;
  const hash = requestHash();
  const started = Date.now();
  for (;;) {
    const claim = await repo.claim(request.user.id, route, key, hash);
    if (claim.state === 'mismatch') throw conflict('This Idempotency-Key was used with another request', 'idempotency_key_reused');
    if (claim.state === 'replay') return reply.status(claim.statusCode).header('idempotent-replayed', 'true').send(claim.response);
    if (claim.state === 'claimed') break;
    // The first request with this key is still running: wait for its answer rather than run it twice.
    if (Date.now() - started > WAIT_MS) throw conflict('A request with this Idempotency-Key is still in progress', 'idempotency_request_in_progress');
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    const { status, body } = await run();
    const serialisable = JSON.parse(JSON.stringify(body));
    await repo.complete(request.user.id, route, key, status, serialisable);
    return reply.status(status).send(body);
  } catch (err) {
    await repo.release(request.user.id, route, key);
    throw err;
  }
}
