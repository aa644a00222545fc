import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { openStreams } from '../sse.ts';
import { unauthorized } from '../errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where routes register figures of their own (the diary's day cache). */
    metricsRegistry: Registry;
  }
}

/**
 * Prometheus metrics at /metrics: requests and latency by route and status, open SSE streams, the LISTEN connection,
 * and the process's own figures. Each app has its own registry (tests build several in one process). With
 * METRICS_TOKEN set, scraping needs `Authorization: Bearer <token>`.
 */
export default fp(
  async (app: FastifyInstance, opts: { token: string }) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    app.decorate('metricsRegistry', registry);
    const labelNames = ['method', 'route', 'status_code'] as const;
    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests',
      labelNames,
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers: [registry],
    });
    new Gauge({
      name: 'sse_open_streams',
      help: 'Open server-sent event streams',
      registers: [registry],
      collect() {
        this.set(openStreams());
      },
    });
    new Counter({
      name: 'profile_read_statements_total',
      help: 'Statements that read profiles; each carries the reads of one event-loop turn, batched across requests',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(app.profileReads.statements);
      },
    });
    new Gauge({
      name: 'listen_connection_up',
      help: '1 while the LISTEN connection that feeds SSE and session revocation is up',
      registers: [registry],
      collect() {
        this.set(app.notifications.connected ? 1 : 0);
      },
    });

    app.addHook('onResponse', (request, reply, done) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
      done();
    });

    app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
      if (opts.token && request.headers.authorization !== `Bearer ${opts.token}`)
        throw unauthorized('Metrics need the metrics token');
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  },
  { name: 'metrics', dependencies: ['notifications', 'profile-reads'] },
);
