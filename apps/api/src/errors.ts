import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';

/** An error the client can act on: its status, a stable snake_case code and a safe message go into the body. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details?: { path: string; message: string }[];
  /** Seconds, sent as Retry-After (429, 503). */
  readonly retryAfter?: number;
  constructor(
    statusCode: number,
    code: string,
    message: string,
    details?: { path: string; message: string }[],
    retryAfter?: number,
  ) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
}

export const badRequest = (message: string, code = 'bad_request', details?: { path: string; message: string }[]) =>
  new HttpError(400, code, message, details);
export const validationFailed = (path: string, message: string) =>
  new HttpError(400, 'validation_failed', `${path}: ${message}`, [{ path, message }]);
export const unauthorized = (message = 'Authentication required', code = 'unauthorized') =>
  new HttpError(401, code, message);
export const notFound = (what = 'Resource') => new HttpError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, code = 'conflict') => new HttpError(409, code, message);

/** The contract's error body. */
export function errorBody(statusCode: number, code: string, message: string, requestId: string, details?: unknown) {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    code,
    message,
    request_id: requestId,
    ...(details ? { details } : {}),
  };
}

/** Faults Node's HTTP parser finds before Fastify sees a request, each with its status and stable code. */
const CLIENT_FAULTS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request took too long to arrive'],
};

/**
 * Fastify's `clientErrorHandler`: requests the parser refuses (headers too large, malformed, too slow) get the
 * contract's error shape too, then the connection closes (the parser cannot go on reading it).
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = CLIENT_FAULTS[err.code ?? ''] ?? [400, 'bad_request', 'The request is malformed'];
  if (socket.writable) {
    const body = JSON.stringify(errorBody(status, code, message, randomUUID()));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
