import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { RecognitionKind } from '@nutrition/worker';
import { recognitionRepository, type JobRow } from '@nutrition/db/repositories';

/** A job's status, when it last changed (epoch milliseconds), and the JSON its streams send. */
export interface JobState {
  status: JobRow['status'];
  updatedAt: number;
  json: string;
}

export const jobState = (row: JobRow): JobState => ({
  status: row.status,
  updatedAt: Date.parse(row.updated_at),
  json: JSON.stringify(row),
});

type Listener = (job: JobState) => void;

export interface JobEvents {
  /** Calls `listener` with the job's state after each status change, until the returned function is called. */
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
 * The SSE hub: a trigger NOTIFYs on every job status change with the job's JSON as streams send it; this process
 * listens on its one LISTEN connection and hands that text, unparsed, to every stream watching the job. A job too
 * large for a notification arrives without its JSON and is read back, together with the others that arrive while a
 * read is in flight (one read at a time per kind, and every delivery of a kind goes through the same queue, so each
 * stream sees a job's states in order). After a reconnect it re-reads every watched job, since notifications sent
 * while disconnected are lost.
 */
export default fp(
  async (app: FastifyInstance) => {
    const jobs = recognitionRepository(app.sql);
    const watchers = new Map<string, { kind: RecognitionKind; listeners: Set<Listener> }>();
    // job id -> its new state, or null when it must be read
    const pending = { dish: new Map<string, JobState | null>(), product: new Map<string, JobState | null>() };
    const reading = { dish: false, product: false };

    const fanOut = (jobId: string, state: JobState) => {
      const entry = watchers.get(jobId);
      if (entry) for (const listener of [...entry.listeners]) listener(state);
    };
    const flush = async (kind: RecognitionKind) => {
      if (reading[kind]) return;
      reading[kind] = true;
      try {
        while (pending[kind].size > 0) {
          const toRead: string[] = [];
          for (const [id, state] of pending[kind]) {
            pending[kind].delete(id);
            if (state) fanOut(id, state);
            else if (toRead.push(id) === BATCH) break;
          }
          if (toRead.length === 0) continue;
          try {
            for (const row of await jobs.byIds(kind, toRead)) fanOut(row.id, jobState(row));
          } catch (err) {
            app.log.error({ err, jobs: toRead.length }, 'could not read jobs for their streams');
          }
        }
      } finally {
        reading[kind] = false;
      }
    };
    const deliver = (kind: RecognitionKind, jobId: string, state: JobState | null) => {
      pending[kind].set(jobId, state);
      void flush(kind);
    };

    for (const kind of ['dish', 'product'] as const) {
      let connectedBefore = false;
      await app.notifications.subscribe(
        CHANNELS[kind],
        (payload) => {
          // '<id> <status> <updated_at ms> <job JSON>', without the JSON when the job was too large (migration 0007)
          const id = payload.slice(0, 36);
          if (!watchers.has(id)) return;
          const statusEnd = payload.indexOf(' ', 37);
          const timeEnd = payload.indexOf(' ', statusEnd + 1);
          deliver(
            kind,
            id,
            timeEnd < 0
              ? null
              : {
                  status: payload.slice(37, statusEnd) as JobState['status'],
                  updatedAt: Number(payload.slice(statusEnd + 1, timeEnd)),
                  json: payload.slice(timeEnd + 1),
                },
          );
        },
        () => {
          if (connectedBefore) for (const [id, entry] of watchers) if (entry.kind === kind) deliver(kind, id, null);
          connectedBefore = true;
        },
      );
    }

    app.decorate('jobEvents', {
      watch(kind, jobId, listener) {
        const entry = watchers.get(jobId) ?? { kind, listeners: new Set<Listener>() };
        watchers.set(jobId, entry);
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
