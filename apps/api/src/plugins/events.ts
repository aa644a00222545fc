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

/** At most this many jobs per read: a burst of notifications becomes a few statements, not one per job. */
const BATCH = 1000;

/**
 * The SSE hub: a trigger NOTIFYs on every job status change; this process listens on its one LISTEN connection and
 * fans each watched job's new row out to every stream watching it. Notifications are collected while a read is in
 * flight and read together in the next one (one read at a time per kind, so rows are delivered in order). After a
 * reconnect it re-reads every watched job, since notifications sent while disconnected are lost.
 */
export default fp(
  async (app: FastifyInstance) => {
    const jobs = recognitionRepository(app.sql);
    const watchers = new Map<string, { kind: RecognitionKind; listeners: Set<Listener> }>();
    const pending = { dish: new Set<string>(), product: new Set<string>() };
    const reading = { dish: false, product: false };

    const flush = async (kind: RecognitionKind) => {
      if (reading[kind]) return;
      reading[kind] = true;
      try {
        while (pending[kind].size > 0) {
          const ids = [...pending[kind]].slice(0, BATCH);
          for (const id of ids) pending[kind].delete(id);
          try {
            for (const row of await jobs.byIds(kind, ids)) {
              const entry = watchers.get(row.id);
              if (entry) for (const listener of [...entry.listeners]) listener(row);
            }
          } catch (err) {
            app.log.error({ err, jobs: ids.length }, 'could not read jobs for their streams');
          }
        }
      } finally {
        reading[kind] = false;
      }
    };
    const deliver = (kind: RecognitionKind, jobId: string) => {
      pending[kind].add(jobId);
      void flush(kind);
    };

    for (const kind of ['dish', 'product'] as const) {
      let connectedBefore = false;
      await app.notifications.subscribe(
        CHANNELS[kind],
        (payload) => {
          const { id } = JSON.parse(payload) as { id: string };
          if (watchers.has(id)) deliver(kind, id);
        },
        () => {
          if (connectedBefore) for (const [id, entry] of watchers) if (entry.kind === kind) deliver(kind, id);
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
