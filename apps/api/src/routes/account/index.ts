import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  accountRepository,
  catalogRepository,
  diaryRepository,
  menuRepository,
  pantryRepository,
  profileRepository,
  recognitionRepository,
  savedRecipeRepository,
  shoppingRepository,
} from '@nutrition/db/repositories';
import { errors } from '../../schemas.ts';
import { notFound } from '../../errors.ts';
import { present as presentProfile } from '../profile/present.ts';
import { present as presentWeek } from '../menu/present.ts';
import { renderList } from '../shopping-list/present.ts';

/** The user's data rights: everything held about them as one document, and the account's deletion. */
const account: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.authenticate);

  app.get(
    '/me/export',
    {
      schema: {
        tags: ['account'],
        summary: 'Everything the service holds about the caller, as one JSON document',
        description:
          'One snapshot of the account, indented for a person to read, in the shapes of the API: profile, sessions ' +
          '(no token material), diary, pantry, bookmarks, menus, shopping lists, the dishes and recipes made for the ' +
          'caller, recognition jobs with their results, references to the uploaded photos (the photos are purged ' +
          'with their jobs), and cached recommendations. Names in the request language.',
        response: {
          200: Type.Unsafe<Readable>({
            type: 'object',
            description: 'the export document',
            additionalProperties: true,
          }),
          ...errors(401, 404),
        },
      },
    },
    async (request, reply) => {
      const userId = request.user.id;
      const language = request.language;
      const time = await app.userTime(request);
      const exportedAt = app.now().toISOString();
      // Every section from one snapshot (REPEATABLE READ): a write or the account's deletion racing the export shows
      // in all of them or in none. Each is serialised as soon as it is read (the text, not the rows, waits for the
      // rest), and the document is sent once the transaction has ended, so a slow download holds no connection.
      const parts = await app.transaction(async (sql) => {
        await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`;
        const profile = await profileRepository(sql).get(userId);
        if (!profile) throw notFound('Profile');
        const catalog = catalogRepository(sql);
        const jobs = recognitionRepository(sql);
        const mine = accountRepository(sql);
        const sections: [string, () => Promise<unknown>][] = [
          ['profile', async () => presentProfile(profile, time.today)],
          ['sessions', () => mine.sessions(userId)],
          ['diary_entries', () => diaryRepository(sql).all(userId, language)],
          ['pantry_items', () => pantryRepository(sql).byIds(userId, null, language, time)],
          ['saved_recipes', () => savedRecipeRepository(sql).byIds(userId, null, language)],
          [
            'menus',
            async () => {
              const menus = menuRepository(sql);
              const weeks = await mine.menuWeeks(userId);
              return Promise.all(
                weeks.map(async (week) => presentWeek(week, await menus.plan(userId, week, language))),
              );
            },
          ],
          [
            'shopping_lists',
            async () => {
              const lists = shoppingRepository(sql);
              const weeks = await mine.shoppingWeeks(userId);
              return Promise.all(weeks.map((week) => renderList(lists, userId, week, language)));
            },
          ],
          [
            'own_dishes',
            async () => {
              const ids = await mine.ownIds('dishes', userId);
              return Promise.all(ids.map((id) => catalog.dishById(userId, id, language)));
            },
          ],
          [
            'own_recipes',
            async () => {
              const ids = await mine.ownIds('recipes', userId);
              return Promise.all(ids.map((id) => catalog.recipeById(userId, id, language)));
            },
          ],
          ['dish_jobs', () => jobs.allOf('dish', userId, language)],
          ['product_jobs', () => jobs.allOf('product', userId, language)],
          ['images', () => mine.images(userId)],
          ['recommendations', () => mine.recommendations(userId)],
        ];
        const parts = [`{\n  "exported_at": ${JSON.stringify(exportedAt)}`];
        for (const [name, read] of sections) {
          const json = JSON.stringify(await read(), null, 2).replaceAll('\n', '\n  ');
          parts.push(`,\n  ${JSON.stringify(name)}: ${json}`);
        }
        parts.push('\n}\n');
        return parts;
      });
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', 'attachment; filename="nutrition-export.json"')
        .send(Readable.from(parts));
    },
  );

  app.delete(
    '/me',
    {
      schema: {
        tags: ['account'],
        summary: 'Delete the account and everything that belongs to it',
        description:
          'Removes the user, every row of theirs, the dishes and recipes made for them, their jobs and photos, and ' +
          'signs out every session at once (their access tokens stop working on every API process). Catalog rows ' +
          'and other users are untouched. Signing in again with the same identity creates a new, empty account.',
        response: { 204: Type.Null(), ...errors(401) },
      },
    },
    async (request, reply) => {
      const sessions = await app.transaction((tx) => accountRepository(tx).deleteUser(request.user.id));
      for (const sessionId of sessions) app.forgetSession(sessionId);
      return reply.status(204).send(null);
    },
  );
};

export default account;
