import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { createBoss, ensureQueues } from '@nutrition/worker';

declare module 'fastify' {
  interface FastifyInstance {
    /** pg-boss as a producer only: the API sends jobs, the workers supervise and consume them. */
    boss: PgBoss;
  }
}

export default fp(
  async (app: FastifyInstance, opts: { url: string }) => {
    const boss = createBoss(opts.url, { supervise: false, max: 2 });
    boss.on('error', (err) => app.log.error({ err }, 'queue error'));
    await boss.start();
    await ensureQueues(boss);
    app.decorate('boss', boss);
    app.addHook('onClose', async () => {
      await boss.stop({ graceful: false, close: true });
    });
  },
  { name: 'queue' },
);
