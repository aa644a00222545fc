import type { Queryable } from '../client.ts';
import type { EnergyInputs } from '@nutrition/domain';
import type { Preferences } from '../schema/users.ts';

export interface ProfileRow {
  id: string;
  email: string | null;
  name: string | null;
  date_of_birth: string | null;
  sex: 'male' | 'female' | null;
  height_cm: number | null;
  weight_kg: number | null;
  activity_level: 'sedentary' | 'light' | 'moderate' | 'active' | 'very_active' | null;
  goal: 'lose' | 'maintain' | 'gain' | null;
  plan: 'free' | 'paid';
  preferences: Preferences;
  /** IANA time zone: the user's "today" is computed in it. */
  timezone: string;
  /** Bumped on every change of a profile field (If-Match). */
  version: number;
}

/** A profile as stored. */
export type StoredProfile = ProfileRow;

/** A profile read with one day of the user's diary: that day's version (null: never written). */
export type ProfileWithDay = StoredProfile & { day: string | null; day_version: string | null };

export type ProfilePatch = Partial<Omit<ProfileRow, 'id' | 'email' | 'plan' | 'preferences' | 'version'>> & {
  /** Merged key by key; a key sent as null is removed (the language preference cleared). */
  preferences?: { [K in keyof Preferences]?: Preferences[K] | null };
};

/** A user's stored profile as a row (shapes as the API sends them), for the reads here and the diary's day read. */
export const STORED_PROFILE = (sql: Queryable) => sql`
  id, email, name, date_of_birth, sex, height_cm::float8 AS height_cm, weight_kg::float8 AS weight_kg,
  activity_level, goal, plan, preferences, timezone, version`;

const PROFILE_COLUMNS = [
  'name',
  'date_of_birth',
  'sex',
  'height_cm',
  'weight_kg',
  'activity_level',
  'goal',
  'timezone',
] as const;

export function profileRepository(sql: Queryable) {
  return {
    async get(userId: string): Promise<StoredProfile | null> {
      const [row] = await this.getMany([{ id: userId, date: null }]);
      return row ?? null;
    },

    /**
     * Several users' profiles in one statement (the API batches concurrent requests' reads into it), each with the
     * version of a diary day when a date is given (a kept day is valid while it is unchanged); null for no such user,
     * in the order asked.
     */
    async getMany(keys: readonly { id: string; date: string | null }[]): Promise<(ProfileWithDay | null)[]> {
      const rows = await sql<(ProfileWithDay & { i: number })[]>`
        SELECT k.i::int AS i, p.*, NULLIF(k.day, '') AS day,
               (SELECT version::text FROM diary_days d WHERE d.user_id = k.id AND d.date = NULLIF(k.day, '')::date)
                 AS day_version
        -- Dates as text, '' for none: postgres.js cannot send an array whose first element is null.
        FROM unnest(${keys.map((k) => k.id)}::uuid[], ${keys.map((k) => k.date ?? '')}::text[]) WITH ORDINALITY
          k(id, day, i)
        CROSS JOIN LATERAL (SELECT ${STORED_PROFILE(sql)} FROM users WHERE id = k.id) p`;
      const found: (ProfileWithDay | null)[] = keys.map(() => null);
      for (const { i, ...row } of rows) found[i - 1] = row;
      return found;
    },

    /** The time zone names PostgreSQL knows (a zone the API accepts must be known to the runtime and to SQL). */
    async timeZoneNames(): Promise<string[]> {
      return (await sql<{ name: string }[]>`SELECT name FROM pg_timezone_names`).map((r) => r.name);
    },

    /** Codes among `codes` that the reference table does not have. */
    async unknownCodes(table: 'cuisines' | 'tags', codes: string[]): Promise<string[]> {
      if (codes.length === 0) return [];
      const known = await sql<{ code: string }[]>`SELECT code FROM ${sql(table)} WHERE code = ANY(${codes})`;
      const found = new Set(known.map((k) => k.code));
      return codes.filter((c) => !found.has(c));
    },

    /**
     * Applies only the sent fields (preferences merged key by key) in one statement, and returns the new row; null
     * when there is no such user, or when `version` is given and the profile's is another (If-Match).
     */
    async update(userId: string, patch: ProfilePatch, version?: number): Promise<ProfileRow | null> {
      const fields: Record<string, string | number | null> = {};
      for (const column of PROFILE_COLUMNS) if (patch[column] !== undefined) fields[column] = patch[column];
      const preferences = JSON.stringify(patch.preferences ?? {});
      // postgres.js needs the column object straight after SET, so an update without columns is its own statement.
      const [row] = await (Object.keys(fields).length > 0
        ? sql<{ id: string }[]>`
            UPDATE users SET ${sql(fields)},
              preferences = jsonb_strip_nulls(preferences || ${preferences}::jsonb), updated_at = now()
            WHERE id = ${userId} AND (${version ?? null}::int IS NULL OR version = ${version ?? null}) RETURNING id`
        : sql<{ id: string }[]>`
            UPDATE users SET preferences = jsonb_strip_nulls(preferences || ${preferences}::jsonb), updated_at = now()
            WHERE id = ${userId} AND (${version ?? null}::int IS NULL OR version = ${version ?? null}) RETURNING id`);
      return row ? this.get(userId) : null;
    },
  };
}

/** The profile columns the energy calculation reads. */
export type EnergyRow = Pick<
  ProfileRow,
  'sex' | 'weight_kg' | 'height_cm' | 'date_of_birth' | 'activity_level' | 'goal'
>;

/** What the energy calculation needs from a profile. */
export function energyInputs(row: EnergyRow): EnergyInputs {
  return {
    sex: row.sex,
    weightKg: row.weight_kg,
    heightCm: row.height_cm,
    dateOfBirth: row.date_of_birth,
    activityLevel: row.activity_level,
    goal: row.goal,
  };
}
