import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { databaseAnswers } from '@nutrition/db';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  db: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
  version: Type.String(),
});

/**
 * Liveness without the database (an orchestrator must not restart a healthy process for a database outage), health
 * with a real database round trip (bounded, so a hung database cannot hang the probe), and readiness.
 */
const system: FastifyPluginAsyncTypebox<{ version: string }> = async (app, opts) => {
  app.get(
    '/health/live',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness: the process answers; never asks the database (for liveness probes)',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
      },
      config: { rateLimit: false },
    },
    async () => ({ status: 'ok' as const, version: opts.version }),
  );

  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Service and database health',
        security: [],
        response: { 200: Health, 503: Health },
      },
      config: { rateLimit: false },
    },
    async (_request, reply) => {
      const db = await databaseAnswers(app.sql);
      return reply
        .status(db ? 200 : 503)
        .send({ status: db ? 'ok' : 'error', db: db ? 'ok' : 'down', version: opts.version });
    },
  );

  app.get(
    '/ready',
    {
      schema: {
        tags: ['system'],
        summary: 'Readiness: 503 while the process drains for shutdown or the database is unreachable',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready') }),
          503: Type.Object({ status: Type.Literal('not_ready'), reason: Type.String() }),
        },
      },
      config: { rateLimit: false },
    },
    async (_request, reply) => {
      if (app.draining) return reply.status(503).send({ status: 'not_ready', reason: 'draining' });
      if (!(await databaseAnswers(app.sql))) return reply.status(503).send({ status: 'not_ready', reason: 'database' });
      return { status: 'ready' as const };
    },
  );
};

export default system;
