import { STATUS_CODES } from 'node:http';

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
