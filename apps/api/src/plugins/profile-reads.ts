import fp from 'fastify-plugin';
import DataLoader from 'dataloader';
import type { FastifyInstance } from 'fastify';
import { profileRepository, type StoredProfile } from '@nutrition/db/repositories';

declare module 'fastify' {
  interface FastifyInstance {
    /** A user's stored profile (with the diary version), or null: see the plugin. */
    profileReads: DataLoader<string, StoredProfile | null>;
  }
}

/**
 * Profile reads of concurrent requests share one statement. The reads of one event-loop turn are sent together as
 * `WHERE id = ANY(...)` once the turn ends, so every read runs after the request that asked for it arrived and sees
 * every write committed before that; nothing is kept between turns. The profile and the diary read the profile on
 * every request (the diary for its version and calorie target), and under load most of their statements merge.
 */
export default fp(
  async (app: FastifyInstance) => {
    const profiles = profileRepository(app.sql);
    const load = async (ids: readonly string[]) => {
      const byId = new Map((await profiles.getMany([...new Set(ids)])).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    };
    app.decorate(
      'profileReads',
      new DataLoader(load, { cache: false, batchScheduleFn: (run) => setImmediate(run), maxBatchSize: 500 }),
    );
  },
  { name: 'profile-reads', dependencies: ['db'] },
);
