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
await app.listen({ host: config.HOST, port: config.PORT });

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
