import { listenProblem } from '@nutrition/domain';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const app = await buildApp(config);
// postgres.js can reject a query promise that no caller holds any more when PostgreSQL drops mid-burst (seen in the
// outage test). Such a rejection is logged: the requests it belonged to were already answered 503, and ending the
// process would turn a database blip into a restart of every pod.
process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
try {
  await app.listen({ host: config.HOST, port: config.PORT });
} catch (err) {
  // A port in use or privileged, a HOST that does not resolve: one line naming the variable, not a stack trace.
  const problem = listenProblem(err, { host: config.HOST, port: config.PORT, portVariable: 'PORT' });
  if (!problem) throw err;
  console.error(`cannot listen: ${problem}`);
  process.exit(1);
}

/**
 * SIGTERM/SIGINT: readiness fails at once, the server stops accepting connections, open SSE streams are told to
 * reconnect (elsewhere), in-flight requests finish; past SHUTDOWN_TIMEOUT_MS the process exits anyway.
 */
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.draining = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('shutdown timed out');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    app.close().then(
      () => {
        app.log.info('stopped');
        process.exit(0);
      },
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
