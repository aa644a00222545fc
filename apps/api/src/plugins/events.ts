import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { RecognitionKind } from '@nutrition/db/queue';
import { recognitionRepository, type JobRow } from '@nutrition/db/repositories';

type Listener = (job: JobRow) => void;

export interface JobEvents {
  /** Calls `listener` with the job's row after each status change, until the returned function is called. */
  watch(kind: RecognitionKind, jobId: string, listener: Listener): () => void;
  /** Open watches, for metrics. */
  readonly size: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobEvents: JobEvents;
  }
}

const CHANNELS: Record<RecognitionKind, string> = { dish: 'dish_job_status', product: 'product_job_status' };

/**
 * The SSE hub: a trigger NOTIFYs on every job status change; this process listens on its one LISTEN connection, reads
 * a job once per notification and fans it out to every stream watching it. After a reconnect it re-reads every watched
 * job, since notifications sent while disconnected are lost.
 */
export default fp(
  async (app: FastifyInstance) => {
    const jobs = recognitionRepository(app.sql);
    const watchers = new Map<string, { kind: RecognitionKind; listeners: Set<Listener> }>();

    const deliver = async (kind: RecognitionKind, jobId: string) => {
      const entry = watchers.get(jobId);
      if (!entry) return;
      try {
        const row = await jobs.byId(kind, jobId);
        if (row) for (const listener of [...entry.listeners]) listener(row);
      } catch (err) {
        app.log.error({ err, jobId }, 'could not read a job for its stream');
      }
    };

    for (const kind of ['dish', 'product'] as const) {
      let connectedBefore = false;
      await app.notifications.subscribe(
        CHANNELS[kind],
        (payload) => {
          const { id } = JSON.parse(payload) as { id: string };
          if (watchers.has(id)) void deliver(kind, id);
        },
        () => {
          if (connectedBefore) for (const [id, entry] of watchers) if (entry.kind === kind) void deliver(kind, id);
          connectedBefore = true;
        },
      );
    }

    app.decorate('jobEvents', {
      watch(kind, jobId, listener) {
        let entry = watchers.get(jobId);
        if (!entry) watchers.set(jobId, (entry = { kind, listeners: new Set() }));
        entry.listeners.add(listener);
        return () => {
          entry.listeners.delete(listener);
          if (entry.listeners.size === 0) watchers.delete(jobId);
        };
      },
      get size() {
        let n = 0;
        for (const entry of watchers.values()) n += entry.listeners.size;
        return n;
      },
    } satisfies JobEvents);
  },
  { name: 'events', dependencies: ['db', 'notifications'] },
);
