import type { FastifyReply, FastifyRequest } from 'fastify';

export const PING_MS = 15_000;

/** Open streams of this process, so shutdown can tell each to reconnect. */
const open = new Set<() => void>();

export function openStreams() {
  return open.size;
}

/** Open streams by the session that opened them, so a revoked session's streams end at once. */
const bySession = new Map<string, Set<() => void>>();

/** Ends every open stream with a final comment asking the client to reconnect (to another process). */
export function closeAllStreams() {
  for (const close of [...open]) close();
}

/** Ends the open streams of a session that was signed out or revoked. */
export function closeSessionStreams(sessionId: string) {
  for (const close of [...(bySession.get(sessionId) ?? [])]) close();
}

/**
 * A server-sent event stream on a hijacked reply: headers kept from the hooks (CORS, request id), each event flushed
 * as written, `: ping` every 15 s, and everything released when either side closes.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply) {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // The connection ends with the stream: a client must not reuse it (and shutdown must not wait for it).
    connection: 'close',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  let closed = false;
  const cleanups: (() => void)[] = [];
  const ping = setInterval(() => res.write(': ping\n\n'), PING_MS);

  const sessionId = request.user?.sid;
  const close = (farewell?: string) => {
    if (closed) return;
    closed = true;
    clearInterval(ping);
    open.delete(shutdown);
    if (sessionId) {
      const streams = bySession.get(sessionId);
      streams?.delete(revoked);
      if (streams?.size === 0) bySession.delete(sessionId);
    }
    for (const cleanup of cleanups) cleanup();
    if (farewell && !res.destroyed) res.write(farewell);
    res.end();
  };
  const shutdown = () => close('retry: 1000\n: server shutting down, reconnect\n\n');
  const revoked = () => close(': session revoked\n\n');
  open.add(shutdown);
  if (sessionId) {
    const streams = bySession.get(sessionId) ?? new Set();
    bySession.set(sessionId, streams);
    streams.add(revoked);
  }
  // A stream whose request was still in hand when shutdown closed the others is told too, once the caller has sent
  // what it sends first.
  if (request.server.draining) queueMicrotask(shutdown);
  request.raw.on('close', () => close());
  // A client that left while the route read the database closed before this listener existed.
  if (request.raw.socket?.destroyed) close();

  return {
    /** `json` is one line of JSON text; `id` names the state it carries, which a reconnecting client sends back. */
    send(event: string, json: string, id: string) {
      if (closed) return;
      res.write(`event: ${event}\nid: ${id}\ndata: ${json}\n\n`);
    },
    onClose(cleanup: () => void) {
      if (closed) cleanup();
      else cleanups.push(cleanup);
    },
    close: () => close(),
    get closed() {
      return closed;
    },
  };
}
