import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { diaryRepository, energyInputs, type InsertedDiaryEntry, type StoredProfile } from '@nutrition/db/repositories';
import { dayWithEntry, energyProfile, isValidDate, MAX_PORTIONS, portionsOfGrams, todayIn } from '@nutrition/domain';
import { errors, IdParams, Nullable } from '../../schemas.ts';
import { conflict, notFound, validationFailed } from '../../errors.ts';
import { violatedForeignKey, violatedUnique } from '@nutrition/db';
import { createOnce } from '../../client-ids.ts';
import { ifMatchVersion, IfMatchHeader, preconditionFailed } from '../../if-match.ts';
import { Counter } from 'prom-client';
import { TextCache } from '../../text-cache.ts';
import { callerScope, isTimestamp, isUuid } from '../../cursor.ts';
import { DiaryDay, DiaryEntry, DiaryQuery, EntryPatch, NewEntry, RecentItem, RecentQuery } from './schemas.ts';

const jobAlreadyLinked = () =>
  conflict('This recognition job is already linked to a diary entry', 'job_already_linked');

/** Kept days are rebuilt at least this often, whatever notifications were missed. */
const DAY_MAX_AGE_MS = 60_000;

/** Portions from grams, refused past what an entry takes (it would not hold the nutrition of the grams it shows). */
function withinPortions(portions: number, servingG: number | null): number {
  if (portions > MAX_PORTIONS)
    throw validationFailed(
      '/body/portion_g',
      `is more than ${MAX_PORTIONS} portions of this dish (a serving is ${servingG} g): log it as several entries`,
    );
  return portions;
}

/** A `/diary/recent` page's end: the last item's latest use at full precision, and its dish or product id. */
const isRecentCursor = (v: unknown): v is [string, string] =>
  Array.isArray(v) &&
  v.length === 2 &&
  typeof v[0] === 'string' &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(v[0]) &&
  isTimestamp(`${v[0].slice(0, 23)}Z`) &&
  isUuid(v[1]);

/**
 * The meal diary: entries for dishes (always resolved to a recipe) or catalog products, nutrition computed at read
 * time.
 */
const diary: FastifyPluginAsyncTypebox<{ cacheMegabytes: number }> = async (app, opts) => {
  const entries = diaryRepository(app.sql);
  app.addHook('onRequest', app.authenticate);

  const checkDate = (date: string, path: string) => {
    if (!isValidDate(date)) throw validationFailed(path, 'is not a calendar date');
  };

  // A day read again (the app's home screen) is served from memory after one read of the profile and the day's
  // version (shared with the other requests of the same turn; see plugins/profile-reads.ts). A write changes only the
  // version of its own day.
  const days = new TextCache(opts.cacheMegabytes * 1024 * 1024, DAY_MAX_AGE_MS);
  const dayKey = (userId: string, date: string, language: string) => `${userId} ${date} ${language}`;
  const dayReads = new Counter({
    name: 'diary_day_cache_reads_total',
    help: 'Diary days read, by whether this process had the day at its current version (hit) or built it (miss)',
    labelNames: ['result'] as const,
    registers: [app.metricsRegistry],
  });
  /**
   * A new entry goes into the day this process keeps at the version the entry replaced, which then stands at the new
   * one: the writer's next read of the day (the app shows the day it logged to) is served without building it again.
   * The day keeps the time it was first built, so the age bound still holds for its other entries.
   */
  const keepWithEntry = (key: string, generation: number, row: InsertedDiaryEntry) => {
    const kept = days.get(key);
    if (!kept || kept.version !== (row.day_version_before ?? '')) return;
    const day = dayWithEntry(
      { json: kept.json, places: kept.index },
      { json: row.json, place: row.place, nutrients: row.entry },
    );
    if (day) days.set(key, generation, row.day_version, day.json, { index: day.places, at: kept.at });
  };
  await app.notifications.subscribe(
    'catalog_changed',
    () => days.invalidate(),
    () => days.invalidate(),
  );

  app.get(
    '/diary',
    {
      schema: {
        tags: ['diary'],
        summary: 'One day of the diary with totals and the calorie target',
        querystring: DiaryQuery,
        // Sent as the JSON text PostgreSQL built (see dayJson); the schema documents its shape.
        response: { 200: Type.Unsafe<string>(DiaryDay), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const { date } = request.query;
      checkDate(date, '/querystring/date');
      const userId = request.user.id;
      const key = dayKey(userId, date, request.language);
      const generation = days.generation;
      const kept = days.get(key);
      const checked = kept ? await app.profileReads.loadWithDay(userId, date) : null;
      let profile: StoredProfile | null = checked;
      let day = kept && checked && (checked.day_version ?? '') === kept.version ? kept.json : null;
      dayReads.inc({ result: day === null ? 'miss' : 'hit' });
      if (day === null) {
        // Entries and totals come back as JSON text from PostgreSQL and are sent as is (the schema documents them).
        const read = await entries.dayJson(userId, date, request.language);
        profile = read.profile;
        day = `"entries":${read.entries},"totals":${read.totals}`;
        if (profile) days.set(key, generation, read.day_version ?? '', day, { index: read.places });
      }
      const target = profile
        ? energyProfile(energyInputs(profile), todayIn(profile.timezone, app.now())).calorie_target
        : null;
      return reply
        .type('application/json; charset=utf-8')
        .send(`{"date":${JSON.stringify(date)},${day},"calorie_target":${target}}`);
    },
  );

  app.post(
    '/diary',
    {
      schema: {
        tags: ['diary'],
        summary: 'Log a dish (by id or by name in any language) or a catalog product',
        description:
          'A name that matches no dish (exactly or very closely, in any language) creates the dish in the request ' +
          'language with a recipe stub (`source` = `stub`) whose per-serving macros the model estimates ' +
          '(counted against ' +
          "the model budget); a known name (the caller's own dish or a catalog dish, case- and accent-insensitive) " +
          "asks no model. A `job_id` links the user's dish job to at most one entry: " +
          'a second is 409 `job_already_linked`. A client-made `id` (UUID) makes the create repeatable: the same ' +
          'id and body again answer 200 with the stored entry, another body 409 `id_conflict`.',
        body: NewEntry,
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({ description: 'retries with the same key and body create one entry' }),
          ),
        }),
        response: { 200: DiaryEntry, 201: DiaryEntry, ...errors(400, 401, 404, 409, 429, 502) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const userId = request.user.id;
      checkDate(body.date, '/body/date');
      const given = [body.dish_id, body.name, body.product_id].filter((v) => v !== undefined).length;
      if (given !== 1) throw validationFailed('/body', 'give exactly one of dish_id, name, product_id');
      if (body.product_id && body.portion_g === undefined)
        throw validationFailed('/body/portion_g', 'is required for a product entry');
      if (body.product_id && body.portions !== undefined)
        throw validationFailed('/body/portions', 'applies to dish entries; use portion_g');
      const name = body.name?.trim();
      if (body.name !== undefined && !name) throw validationFailed('/body/name', 'must not be blank');

      // A known name (the caller's own dish or the catalog's) costs no model call. An unknown one is estimated before
      // the transaction (a model call must not hold a connection and a lock), against the model budget.
      let estimate: Awaited<ReturnType<typeof app.model.estimateDishMacros>> | null = null;
      return createOnce(app, request, reply, {
        kind: 'diary_entries',
        id: body.id,
        body,
        read: async (id) => entries.get(userId, id, request.language),
        prepare: async () => {
          if (name && !(await entries.findDishByName(userId, name))) {
            app.spendModelBudget(request);
            estimate = await app.model.estimateDishMacros({ name, language: request.language });
          }
        },
        create: async (tx, client) => {
          const generation = days.generation;
          const diary = diaryRepository(tx);
          if (body.job_id) {
            if (!(await diary.ownsDishJob(userId, body.job_id))) throw notFound('Recognition job');
            if (await diary.jobLinked(body.job_id)) throw jobAlreadyLinked();
          }
          let dishId = body.dish_id ?? null;
          let recipe: { id: string; serving_g: number | null } | null = null;
          if (name) {
            // One dish per name and user, even when two requests race.
            await diary.lockDishName(userId, name);
            dishId = await diary.findDishByName(userId, name);
            if (!dishId) {
              // Found before the transaction, gone now: the client may simply retry.
              if (!estimate) throw conflict('The dish changed while it was logged, try again', 'retry');
              const stub = await diary.createStubDish(userId, name, request.language, estimate);
              dishId = stub.dishId;
              recipe = { id: stub.recipeId, serving_g: null };
            }
          }
          if (dishId && !recipe) {
            recipe = await diary.dishRecipe(userId, dishId);
            if (!recipe) throw notFound('Dish');
          }
          // Grams without portions: as many portions as the grams make of the recipe's serving (one when its weight
          // is unknown).
          const portions = !recipe
            ? null
            : (body.portions ??
              (body.portion_g === undefined
                ? 1
                : withinPortions(portionsOfGrams(body.portion_g, recipe.serving_g) ?? 1, recipe.serving_g)));
          const inserted = await diary
            .insert(
              userId,
              {
                date: body.date,
                mealType: body.meal_type,
                dishId,
                recipeId: recipe?.id ?? null,
                productId: body.product_id ?? null,
                portions,
                portionG: body.portion_g ?? null,
                jobId: body.job_id ?? null,
                id: client?.id,
                clientHash: client?.hash,
              },
              request.language,
            )
            .catch((err: unknown) => {
              // The product check is the insert's own foreign key; a dish may be deleted since it was looked up.
              const key = violatedForeignKey(err);
              if (key === 'meal_diary_product_id_products_id_fk') throw notFound('Product');
              if (key === 'meal_diary_recipe_id_recipes_id_fk' || key === 'meal_diary_dish_id_dishes_id_fk')
                throw notFound('Dish');
              throw err;
            });
          keepWithEntry(dayKey(userId, body.date, request.language), generation, inserted);
          return { status: 201, body: inserted.entry };
        },
        // A product or a known dish is one insert (after the dish's recipe is read): no transaction without a key.
        inTransaction: name !== undefined || body.job_id !== undefined,
      }).catch((err: unknown) => {
        // Two requests linking one job at the same moment: the unique index decides.
        if (violatedUnique(err) === 'meal_diary_job_idx') throw jobAlreadyLinked();
        throw err;
      });
    },
  );

  app.patch(
    '/diary/:id',
    {
      schema: {
        tags: ['diary'],
        summary: 'Change the date, meal, portions or grams of an entry',
        description:
          'A dish entry takes `portions` and `portion_g` (null clears it; grams without portions set the portions ' +
          "from the recipe's serving weight); a product entry takes `portion_g` only (its nutrition follows the " +
          'grams). The same request twice gives the same entry. With `If-Match`, only if the entry is still at that ' +
          'version.',
        params: IdParams,
        body: EntryPatch,
        headers: IfMatchHeader,
        response: { 200: DiaryEntry, ...errors(400, 401, 404, 412) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const userId = request.user.id;
      const body = request.body;
      if (body.date !== undefined) checkDate(body.date, '/body/date');
      const entry = await entries.get(userId, id, request.language);
      if (!entry) throw notFound('Diary entry');
      if (entry.product_id) {
        if (body.portions !== undefined)
          throw validationFailed('/body/portions', 'applies to dish entries; use portion_g');
        if (body.portion_g === null) throw validationFailed('/body/portion_g', 'is required for a product entry');
      }
      // New grams of a dish without new portions: the portions follow the grams, unless the serving weight is
      // unknown (a stub dish); then the portions logged stay.
      let portions = body.portions;
      if (portions === undefined && entry.recipe_id && typeof body.portion_g === 'number') {
        const servingG = await entries.servingGrams(entry.recipe_id);
        const fromGrams = portionsOfGrams(body.portion_g, servingG);
        if (fromGrams !== null) portions = withinPortions(fromGrams, servingG);
      }
      const changed = await entries.update(
        userId,
        id,
        { date: body.date, mealType: body.meal_type, portions, portionG: body.portion_g },
        ifMatchVersion(request),
      );
      if (!changed)
        throw (await entries.get(userId, id, request.language))
          ? preconditionFailed('The entry')
          : notFound('Diary entry');
      // Deleted by another device since the update: as if the deletion came first.
      const updated = await entries.get(userId, id, request.language);
      if (!updated) throw notFound('Diary entry');
      return updated;
    },
  );

  app.delete(
    '/diary/:id',
    {
      schema: {
        tags: ['diary'],
        summary: 'Delete an entry',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await entries.delete(request.user.id, request.params.id))) throw notFound('Diary entry');
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/diary/recent',
    {
      schema: {
        tags: ['diary'],
        summary: 'Distinct recently logged dishes and products with use counts, most recent first',
        description: 'Paged by `cursor`; an item used again while paging moves to the front and is not repeated.',
        querystring: RecentQuery,
        response: {
          200: Type.Object({ items: Type.Array(RecentItem), next_cursor: Nullable(Type.String()) }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 20;
      const after = app.cursors.after(callerScope(request), request.query.cursor, isRecentCursor);
      const rows = await entries.recent(
        request.user.id,
        request.language,
        limit + 1,
        after && { at: after[0], key: after[1] },
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map(({ page_at: _at, page_key: _key, ...item }) => item),
        next_cursor:
          rows.length > limit && last ? app.cursors.next(callerScope(request), [last.page_at, last.page_key]) : null,
      };
    },
  );
};

export default diary;
