import { sql } from 'drizzle-orm';
import { check, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bytea, createdAt, decimal, id, oneOf, PLANS, timestamptz } from './columns.ts';

export interface Preferences {
  language?: string;
  cuisines?: string[];
  excluded_tags?: string[];
  meals_per_day?: number;
}

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Issuer of the identity token (`noop` for local development logins). */
    identityProvider: text().notNull(),
    externalSubject: text().notNull(),
    email: text(),
    name: text(),
    dateOfBirth: date({ mode: 'string' }),
    sex: text(),
    heightCm: decimal(),
    weightKg: decimal(),
    activityLevel: text(),
    goal: text(),
    plan: text().notNull().default('free'),
    preferences: jsonb().$type<Preferences>().notNull().default({}),
    /** IANA time zone of the user's device: every "today" of the user is computed in it. */
    timezone: text().notNull().default('UTC'),
    /** The profile's version: bumped by a trigger when a profile field changes (`If-Match` on PUT /profile). */
    version: integer().notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_identity_idx').on(t.identityProvider, t.externalSubject),
    check('users_sex_check', sql`${t.sex} IN ('male', 'female')`),
    check(
      'users_activity_check',
      sql`${t.activityLevel} IN ('sedentary', 'light', 'moderate', 'active', 'very_active')`,
    ),
    check('users_goal_check', sql`${t.goal} IN ('lose', 'maintain', 'gain')`),
    check('users_plan_check', oneOf('plan', PLANS)),
    check('users_height_check', sql`${t.heightCm} BETWEEN 50 AND 272`),
    check('users_weight_check', sql`${t.weightKg} BETWEEN 20 AND 500`),
  ],
);

/** A signed-in device. Access tokens carry its id (`sid`); revoking it ends them all. */
export const sessions = pgTable(
  'sessions',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamptz().notNull(),
    revokedAt: timestamptz(),
    revokedReason: text(),
    userAgent: text(),
  },
  (t) => [
    index('sessions_user_idx').on(t.userId),
    index('sessions_revoked_idx').on(t.revokedAt).where(sql`${t.revokedAt} IS NOT NULL`),
  ],
);

/**
 * Every refresh token ever issued for a session. The row id is the public half of the token; only the SHA-256 of the
 * secret half is stored. A token with `replaced_at` set was rotated into `replaced_by`: presenting it again within the
 * refresh grace period hands out that successor again; later, it is treated as theft.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: id(),
    sessionId: uuid()
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    secretHash: bytea().notNull(),
    createdAt: createdAt(),
    expiresAt: timestamptz().notNull(),
    replacedAt: timestamptz(),
    replacedBy: uuid(),
  },
  (t) => [index('refresh_tokens_session_idx').on(t.sessionId)],
);

/**
 * Idempotent creations: a client retrying with the same Idempotency-Key gets the first response instead of a second
 * row; the same key with another body is a conflict. Keys are kept for a day.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    route: text().notNull(),
    key: text().notNull(),
    requestHash: text().notNull(),
    statusCode: integer(),
    response: jsonb(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.route, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);
