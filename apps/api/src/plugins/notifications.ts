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
 * One dedicated LISTEN connection per API process (postgres.js keeps it apart from the pool and reconnects it with
 * backoff). NOTIFY is a latency hint: subscribers re-read state on every reconnect.
 */
export default fp(
  async (app: FastifyInstance) => {
    let connected = false;
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
