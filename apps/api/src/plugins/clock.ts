import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { profileRepository } from '@nutrition/db/repositories';
import { isTimeZone, todayIn } from '@nutrition/domain';

/** What "now" and "today" are for the user of a request. */
export interface UserTime {
  zone: string;
  now: Date;
  /** The calendar date on the user's clock. */
  today: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The current instant (the tests hand in a clock of their own). */
    now: () => Date;
    /** The time zones a profile may name: those the runtime and PostgreSQL both know. */
    timeZones: Set<string>;
    /** Now and today in the time zone of the request's user (from the profile; UTC without one). */
    userTime: (request: FastifyRequest) => Promise<UserTime>;
  }
}

/**
 * One place for "now" and "today": every default date, "today", "this week" and "the last 24 hours" is computed from
 * `app.now()` in the user's time zone, through the domain's `todayIn`, and SQL is handed those values. `days_left` is
 * counted in SQL from `app.now()`, by the same zone rules as the expiry date it counts to (see the pantry repository).
 */
export default fp(
  async (app: FastifyInstance, opts: { clock?: () => Date }) => {
    const now = opts.clock ?? (() => new Date());
    app.decorate('now', now);
    const zones = await profileRepository(app.sql).timeZoneNames();
    app.decorate('timeZones', new Set(zones.filter(isTimeZone)));
    app.decorate('userTime', async (request: FastifyRequest) => {
      const zone = (await app.profileReads.own(request))?.timezone ?? 'UTC';
      const at = now();
      return { zone, now: at, today: todayIn(zone, at) };
    });
  },
  { name: 'clock', dependencies: ['db', 'profile-reads'] },
);
