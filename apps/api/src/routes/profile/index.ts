import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addYears, todayIn } from '@nutrition/domain';
import { profileRepository } from '@nutrition/db/repositories';
import { errors } from '../../schemas.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { Profile, ProfileUpdate } from './schemas.ts';
import { present } from './present.ts';
import { ifMatchVersion, IfMatchHeader, preconditionFailed } from '../../if-match.ts';

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
      const row = await app.profileReads.own(request);
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
        headers: IfMatchHeader,
        response: { 200: Profile, ...errors(400, 401, 404, 412) },
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
      const version = ifMatchVersion(request);
      const row = await profiles.update(
        request.user.id,
        { ...fields, ...(fields.name ? { name: fields.name.trim() } : {}), ...(preferences ? { preferences } : {}) },
        version,
      );
      if (!row)
        throw version !== undefined && (await profiles.get(request.user.id))
          ? preconditionFailed('The profile')
          : notFound('Profile');
      return present(row, today);
    },
  );
};

export default profile;
