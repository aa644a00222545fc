import fp from 'fastify-plugin';
import DataLoader from 'dataloader';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { profileRepository, type ProfileWithDay, type StoredProfile } from '@nutrition/db/repositories';

declare module 'fastify' {
  interface FastifyInstance {
    /** Users' stored profiles: see the plugin. */
    profileReads: {
      /** The user's profile, or null. */
      load(userId: string): Promise<StoredProfile | null>;
      /** The user's profile with the version of one day of the diary (a kept day's check), or null. */
      loadWithDay(userId: string, date: string): Promise<ProfileWithDay | null>;
      /**
       * The caller's profile as this request found it, read on first use and shared by the rest of the request (its
       * language, its time zone, `GET /profile`). A handler that changes the profile uses what its write returns.
       */
      own(request: FastifyRequest): Promise<StoredProfile | null>;
      /** Statements sent so far, for metrics: each carries the reads of one event-loop turn. */
      readonly statements: number;
    };
  }
  interface FastifyRequest {
    ownProfile: Promise<StoredProfile | null> | null;
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
    let statements = 0;
    const loader = new DataLoader<{ id: string; date: string | null }, ProfileWithDay | null>(
      (keys) => {
        statements++;
        return profiles.getMany(keys);
      },
      { cache: false, batchScheduleFn: (run) => setImmediate(run), maxBatchSize: 500 },
    );
    const load = (userId: string) => loader.load({ id: userId, date: null });
    app.decorateRequest('ownProfile', null);
    app.decorate('profileReads', {
      load,
      loadWithDay: (userId: string, date: string) => loader.load({ id: userId, date }),
      own: (request: FastifyRequest) => (request.ownProfile ??= load(request.user.id)),
      get statements() {
        return statements;
      },
    });
  },
  { name: 'profile-reads', dependencies: ['db'] },
);
