import fp from 'fastify-plugin';
import DataLoader from 'dataloader';
import type { FastifyInstance } from 'fastify';
import { profileRepository, type ProfileWithDay, type StoredProfile } from '@nutrition/db/repositories';

declare module 'fastify' {
  interface FastifyInstance {
    /** Users' stored profiles: see the plugin. */
    profileReads: {
      /** The user's profile, or null. */
      load(userId: string): Promise<StoredProfile | null>;
      /** The user's profile with the version of one day of the diary (a kept day's check), or null. */
      loadWithDay(userId: string, date: string): Promise<ProfileWithDay | null>;
    };
  }
}

/**
 * Profile reads of concurrent requests share one statement. The reads of one event-loop turn are sent together as
 * one statement once the turn ends, so every read runs after the request that asked for it arrived and sees every
 * write committed before that; nothing is kept between turns. The profile and the diary read the profile on every
 * request (the diary for its day's version and the calorie target), and under load most of their statements merge.
 */
export default fp(
  async (app: FastifyInstance) => {
    const profiles = profileRepository(app.keyedSql);
    const loader = new DataLoader<{ id: string; date: string | null }, ProfileWithDay | null>(
      (keys) => profiles.getMany(keys),
      { cache: false, batchScheduleFn: (run) => setImmediate(run), maxBatchSize: 500 },
    );
    app.decorate('profileReads', {
      load: (userId: string) => loader.load({ id: userId, date: null }),
      loadWithDay: (userId: string, date: string) => loader.load({ id: userId, date }),
    });
  },
  { name: 'profile-reads', dependencies: ['db'] },
);
