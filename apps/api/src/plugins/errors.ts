import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { ModelUnavailable } from '@nutrition/ai';
import { DatabaseBusy, violatedForeignKey } from '@nutrition/db';
import { errorBody, HttpError } from '../errors.ts';

/** Fastify's own error codes that are the client's fault, mapped to our stable codes. */
const CLIENT_ERROR_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_INVALID_TYPE: 'bad_request',
  FST_ERR_VALIDATION: 'validation_failed',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_FILES_LIMIT: 'too_many_images',
  FST_PARTS_LIMIT: 'bad_request',
  FST_FIELDS_LIMIT: 'bad_request',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
};

/** Connection failures and server shutdowns: a 503 the client can retry, not a 500. */
const DATABASE_DOWN = new Set([
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** deadlock_detected and serialization_failure: the transaction was rolled back and may be run again. */
const RETRY_CODES = new Set(['40P01', '40001']);

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DATABASE_DOWN.has(code);
}

function databaseAway(app: FastifyInstance): boolean {
  const notifications = (app as { notifications?: { connected: boolean } }).notifications;
  return notifications !== undefined && !notifications.connected;
}

function snakeCase(code: string) {
  return code
    .replace(/^FST_(ERR_)?/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_');
}

/**
 * One error shape everywhere: validation, unknown routes, auth, thrown HttpErrors, and panics (500 `internal_error`,
 * message never echoed; the process keeps serving).
 */
export default fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
      if (error instanceof HttpError) {
        if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
        return reply
          .status(error.statusCode)
          .send(errorBody(error.statusCode, error.code, error.message, request.id, error.details));
      }
      if (error instanceof ModelUnavailable) {
        request.log.warn({ err: error }, 'model unavailable');
        return reply
          .status(502)
          .send(errorBody(502, 'model_unavailable', 'The model service is unavailable, try again later', request.id));
      }
      const fe = error as FastifyError;
      if (fe.validation) {
        const details = fe.validation.map((v) => ({
          path: `${fe.validationContext ? `/${fe.validationContext}` : ''}${v.instancePath ?? ''}`,
          message: v.message ?? 'is invalid',
        }));
        const first = details[0];
        const message = first ? `${first.path}: ${first.message}` : 'Invalid request';
        return reply.status(400).send(errorBody(400, 'validation_failed', message, request.id, details));
      }
      if (error instanceof DatabaseBusy) {
        request.log.warn('no transaction slot within the wait: answered busy');
        return reply
          .status(503)
          .header('retry-after', '1')
          .send(errorBody(503, 'busy', 'The service is busy, try again shortly', request.id));
      }
      // An error of no known kind while the LISTEN connection is down is taken for the database being away too
      // (drivers word a cut-off connection in more ways than codes say): a 503 to retry, logged with the error.
      if (isDatabaseUnavailable(error) || (!(error as FastifyError).statusCode && databaseAway(app))) {
        request.log.warn({ err: error }, 'database unavailable');
        return reply
          .status(503)
          .header('retry-after', '2')
          .send(errorBody(503, 'database_unavailable', 'The database is unavailable, try again shortly', request.id));
      }
      // A transaction PostgreSQL ended to break a deadlock (or a serialization conflict) was rolled back whole: the
      // same request may simply be sent again. Writes take their locks in one order (see lockOwner), so this is a
      // backstop, logged as an error to look into.
      if (RETRY_CODES.has((error as { code?: unknown }).code as string)) {
        request.log.error({ err: error }, 'transaction ended by a lock conflict: answered busy');
        return reply
          .status(503)
          .header('retry-after', '1')
          .send(errorBody(503, 'busy', 'The service is busy, try again shortly', request.id));
      }
      // A row of the caller's whose user is gone: the account was deleted while the request ran, and its sessions
      // with it. Every row a request writes is the caller's, so any foreign key to users says so.
      if (violatedForeignKey(error)?.endsWith('_users_id_fk'))
        return reply.status(401).send(errorBody(401, 'session_revoked', 'The account was deleted', request.id));
      const status = fe.statusCode ?? 500;
      if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        // Fastify closes the connection after refusing a body by its length; with the body still arriving, the close
        // is a reset that can swallow the 413 before the client reads it. Kept alive, Node reads and drops the rest
        // of the body instead, and the client sees the answer (and may stop sending).
        reply.removeHeader('connection');
      }
      if (status >= 400 && status < 500) {
        const code = (fe.code && CLIENT_ERROR_CODES[fe.code]) ?? (fe.code ? snakeCase(fe.code) : 'bad_request');
        return reply.status(status).send(errorBody(status, code, fe.message, request.id));
      }
      request.log.error({ err: error }, 'request failed');
      const code = status === 503 ? 'service_unavailable' : 'internal_error';
      const message = status === 503 ? 'A dependency is unavailable, try again shortly' : 'Internal server error';
      return reply.status(Math.max(status, 500)).send(errorBody(Math.max(status, 500), code, message, request.id));
    });

    app.setNotFoundHandler((request, reply) => {
      reply
        .status(404)
        .send(
          errorBody(
            404,
            'route_not_found',
            `Route ${request.method} ${request.url.split('?')[0]} not found`,
            request.id,
          ),
        );
    });

    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'errors' },
);
