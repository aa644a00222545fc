import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { findTextProblem } from '@nutrition/domain';
import { validationFailed } from '../errors.ts';

/** Headers the service reads as text (the others it checks by pattern, or ignores). */
const TEXT_HEADERS = ['accept-language', 'idempotency-key'] as const;

/**
 * One text rule for everything the service reads: no NUL or other control character (tab, line feed and carriage
 * return are allowed in body text) and no lone surrogate, in bodies, query strings, path parameters and the headers
 * it uses. PostgreSQL refuses NUL and would store the rest as sent; a client gets `400 validation_failed` instead.
 */
export default fp(
  async (app: FastifyInstance) => {
    app.addHook('preValidation', (request, _reply, done) => {
      const headers = Object.fromEntries(
        TEXT_HEADERS.filter((h) => request.headers[h] !== undefined).map((h) => [h, request.headers[h]]),
      );
      const problem =
        findTextProblem(request.params, '/params', 'line') ??
        findTextProblem(request.query, '/querystring', 'line') ??
        findTextProblem(headers, '/headers', 'line') ??
        findTextProblem(request.body, '/body', 'text');
      done(problem ? validationFailed(problem.path, problem.message) : undefined);
    });
  },
  { name: 'input' },
);
