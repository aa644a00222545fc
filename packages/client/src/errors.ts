import type { components } from './api.generated.ts';

export type ErrorBody = components['schemas']['Error'];

/** A non-2xx answer in the contract's error shape, thrown by the hand-written helpers. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorBody['details'];
  readonly requestId: string | undefined;
  /** Seconds from `Retry-After`, when the server sent one (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: Partial<ErrorBody> | undefined, retryAfter?: number) {
    super(body?.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code ?? 'http_error';
    this.details = body?.details;
    this.requestId = body?.request_id;
    this.retryAfter = retryAfter;
  }

  static async from(response: Response): Promise<ApiError> {
    const body = (await response.json().catch(() => undefined)) as ErrorBody | undefined;
    const seconds = Number(response.headers.get('retry-after'));
    return new ApiError(response.status, body, seconds > 0 ? seconds : undefined);
  }
}
