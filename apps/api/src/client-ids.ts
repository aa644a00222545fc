import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '@nutrition/db';
import { type ClientIdKind, syncRepository } from '@nutrition/db/repositories';
import { conflict, HttpError } from './errors.ts';
import { fingerprint, idempotent } from './idempotency.ts';

/**
 * A create that may carry a client-made id (an app that works offline names its rows itself): the same id with the
 * same body again answers `200` with the stored row and creates nothing; another body, another user's row or a
 * deleted row of that id is `409`. Two copies racing meet at the primary key. Without an id the create runs as
 * before (with its Idempotency-Key, if any).
 */
export async function createOnce(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: {
    kind: ClientIdKind;
    id: string | undefined;
    body: unknown;
    /** Work before the transaction that a replay must not repeat (a model call). */
    prepare?: () => Promise<void>;
    /** Creates the row (with `id` and `hash` when given) and answers with it. */
    create: (
      tx: Queryable,
      client: { id: string; hash: string } | undefined,
    ) => Promise<{ status: number; body: unknown }>;
    /** The stored row as the create answers it. */
    read: (id: string) => Promise<unknown>;
    /** False when `create` is one statement: without an Idempotency-Key it then runs outside a transaction. */
    inTransaction?: boolean;
  },
) {
  const id = opts.id?.toLowerCase();
  // Hashed only when an id or an Idempotency-Key asks for it: most creates carry neither.
  let kept: string | undefined;
  const hash = () => (kept ??= fingerprint({ ...(opts.body as object), id }));
  const deleted = () => conflict('A row with this id was deleted; make a new id', 'id_conflict');
  const replay = async (id: string) => {
    const stored = await syncRepository(app.sql).clientRow(opts.kind, id);
    if (!stored) return null;
    if (stored.user_id !== request.user.id || stored.deleted || stored.client_hash !== hash())
      throw stored.deleted && stored.user_id === request.user.id
        ? deleted()
        : conflict('This id names another row', 'id_conflict');
    // Deleted by another device since the look above (a read finds nothing, or answers 404): as if it came first.
    const row = await opts.read(id).catch((err: unknown) => {
      if (err instanceof HttpError && err.statusCode === 404) return null;
      throw err;
    });
    if (row == null) throw deleted();
    return reply.status(200).send(row);
  };
  if (id !== undefined) {
    const answered = await replay(id);
    if (answered) return answered;
  }
  await opts.prepare?.();
  const client = id === undefined ? undefined : { id, hash: hash() };
  return idempotent(app, request, reply, hash, (tx) => opts.create(tx, client), opts.inTransaction).catch(
    async (err: unknown) => {
      // The same id created by a parallel copy of this request (or by anyone) since the look above, which made this
      // one fail: at the primary key, or on a rule the first copy now holds (the job it linked).
      if (id !== undefined) {
        const answered = await replay(id);
        if (answered) return answered;
      }
      throw err;
    },
  );
}
