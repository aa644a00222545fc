import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addYears, energyProfile, todayIn } from '@nutrition/domain';
import { energyInputs, profileRepository, type ProfileRow } from '@nutrition/db/repositories';
import { errors } from '../../schemas.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { Profile, ProfileUpdate } from './schemas.ts';

const DEFAULT_MEALS_PER_DAY = 3;

function present(row: ProfileRow, today: string) {
  const derived = energyProfile(energyInputs(row), today);
  return {
    ...row,
    age: derived.age,
    preferences: {
      language: row.preferences.language ?? null,
      cuisines: row.preferences.cuisines ?? [],
      excluded_tags: row.preferences.excluded_tags ?? [],
      meals_per_day: row.preferences.meals_per_day ?? DEFAULT_MEALS_PER_DAY,
    },
    bmr: derived.bmr,
    calorie_target: derived.calorie_target,
    macro_targets: derived.macro_targets,
  };
}

const profile: FastifyPluginAsyncTypebox = async (app) => {
  const profiles = profileRepository(app.sql);
  app.addHook('onRequest', app.authenticate);

  app.get(
    '/profile',
    {
      schema: {
        tags: ['profile'],
        summary: 'The user profile with derived energy targets',
        response: { 200: Profile, ...errors(401, 404) },
      },
    },
    async (request) => {
      const row = await app.profileReads.load(request.user.id);
      if (!row) throw notFound('Profile');
      return present(row, (await app.userTime(request)).today);
    },
  );

  app.put(
    '/profile',
    {
      schema: {
        tags: ['profile'],
        summary: 'Partial update of the profile, applied atomically',
        body: ProfileUpdate,
        response: { 200: Profile, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.timezone !== undefined && !app.timeZones.has(body.timezone)) {
        throw validationFailed('/body/timezone', 'is not an IANA time zone name (such as Europe/Kyiv)');
      }
      // Limits on the date of birth count from today in the zone the profile will have.
      const { zone, now } = await app.userTime(request);
      const today = todayIn(body.timezone ?? zone, now);
      if (body.date_of_birth) {
        if (body.date_of_birth > addYears(today, -10) || body.date_of_birth < addYears(today, -120)) {
          throw validationFailed('/body/date_of_birth', 'must be between 10 and 120 years before today');
        }
      }
      if (body.name !== undefined && body.name !== null && body.name.trim().length === 0) {
        throw validationFailed('/body/name', 'must not be blank');
      }
      const prefs = body.preferences;
      if (typeof prefs?.language === 'string' && !app.languages.byCode.has(prefs.language)) {
        throw validationFailed('/body/preferences/language', `unsupported language ${prefs.language}`);
      }
      for (const [field, table] of [
        ['cuisines', 'cuisines'],
        ['excluded_tags', 'tags'],
      ] as const) {
        const unknown = await profiles.unknownCodes(table, prefs?.[field] ?? []);
        if (unknown.length > 0)
          throw validationFailed(`/body/preferences/${field}`, `unknown codes: ${unknown.join(', ')}`);
      }
      const { preferences, ...fields } = body;
      const row = await profiles.update(request.user.id, {
        ...fields,
        ...(fields.name ? { name: fields.name.trim() } : {}),
        ...(preferences ? { preferences } : {}),
      });
      if (!row) throw notFound('Profile');
      return present(row, today);
    },
  );
};

export default profile;
