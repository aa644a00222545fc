import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

type Handler = (payload: string) => void;

export interface Notifications {
  /**
   * Runs `onMessage` for every NOTIFY on `channel`, and `onListen` each time the LISTEN connection is (re)established,
   * so a subscriber can re-read state it may have missed while disconnected.
   */
  subscribe(channel: string, onMessage: Handler, onListen?: () => void): Promise<void>;
  /** True while the LISTEN connection is up. */
  readonly connected: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    notifications: Notifications;
  }
}

/**
 * Runs `onClose` whenever postgres.js's LISTEN connection closes or an attempt to reopen it fails, before postgres.js
 * listens again; false where the driver offers no such hook. Its public `listen` only says when LISTEN is (re)made
 * (`onlisten`), never when it is lost. The connection is an instance of its own, made by the first `listen` and kept
 * on the function (`sql.listen.sql`), whose pool calls `options.onclose` (read at each close; postgres.js sets it to
 * listen again) for every closed connection. postgres.js 3.4.9 internals: faults.test.ts fails if they move.
 */
function onListenConnectionClosed(sql: FastifyInstance['sql'], onClose: () => void): boolean {
  const options = (sql.listen as { sql?: { options?: { onclose?: unknown } } }).sql?.options;
  const relisten = options?.onclose;
  if (!options || typeof relisten !== 'function') return false;
  options.onclose = (...args: unknown[]) => {
    onClose();
    return relisten(...args);
  };
  return true;
}

/**
 * One dedicated LISTEN connection per API process (postgres.js keeps it apart from the pool and reconnects it with
 * backoff). NOTIFY is a latency hint: subscribers re-read state on every reconnect.
 */
export default fp(
  async (app: FastifyInstance) => {
    // Up from the first LISTEN and each one made again after a reconnect, down from the moment its connection closes
    // (listen_connection_up, and errors of no known kind answered 503 while it is down: see the errors plugin).
    let connected = false;
    let watching = false;
    const unlisteners: (() => Promise<void>)[] = [];
    const notifications: Notifications = {
      get connected() {
        return connected;
      },
      async subscribe(channel, onMessage, onListen) {
        const { unlisten } = await app.sql.listen(
          channel,
          (payload) => {
            try {
              onMessage(payload);
            } catch (err) {
              app.log.error({ err, channel }, 'notification handler failed');
            }
          },
          () => {
            connected = true;
            onListen?.();
          },
        );
        unlisteners.push(unlisten);
        if (!watching) {
          watching = true;
          if (!onListenConnectionClosed(app.sql, () => (connected = false)))
            app.log.warn(
              'postgres.js offers no close hook: listen_connection_up will not show the LISTEN connection down',
            );
        }
      },
    };
    app.decorate('notifications', notifications);
    app.addHook('preClose', async () => {
      connected = false;
      await Promise.allSettled(unlisteners.map((u) => u()));
    });
  },
  { name: 'notifications', dependencies: ['db'] },
);
