import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  catalogRepository,
  recommendationSetRepository,
  type CachedRecommendation,
  type RecommendationSet,
} from '@nutrition/db/repositories';
import type { UserTime } from '../../plugins/clock.ts';
import { named, errors, MealType, Nullable, Timestamp, Uuid } from '../../schemas.ts';
import { Recipe } from '../catalog/schemas.ts';
import { planningContext, photosFor, saveRecipes } from '../../planning.ts';
import type { Config } from '../../config.ts';

const Recommendation = named(
  'Recommendation',
  Type.Intersect([
    Recipe,
    Type.Object({
      title: Type.String({ description: 'in the request language' }),
      reason: Type.String(),
      uses_products: Type.Array(Uuid, { description: 'pantry product ids the recipe uses' }),
    }),
  ]),
);

/** A generation under way in this process: the limit it asked the model for, and the set it will answer. */
interface InFlight {
  asked: number;
  set: Promise<RecommendationSet>;
}

const Query = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        default: 5,
        description: 'recipes asked of the model, which may answer fewer; the cached set serves every limit up to it',
      }),
    ),
    meal_type: Type.Optional(MealType),
    refresh: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

/**
 * Recipes recommended by the model for the user's targets, preferences and expiring pantry, stored as dishes and
 * recipes (`source` = `ai`) and cached per user, day, language and meal type; `refresh=true` regenerates. A set made
 * for a limit serves every later read of that limit or less, however many recipes the model answered with.
 */
const recommendations: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const cache = recommendationSetRepository(app.sql);
  const catalog = catalogRepository(app.sql, app.searchSql);
  // Requests in this process for one set share its generation when it asked for at least their limit; a larger
  // limit starts its own (and takes the key).
  const inflight = new Map<string, InFlight>();
  app.addHook('onRequest', app.authenticate);

  async function generate(
    userId: string,
    time: UserTime,
    language: string,
    mealType: string | null,
    count: number,
    refresh: boolean,
  ): Promise<RecommendationSet> {
    const day = time.today;
    const ctx = await planningContext(app, userId, language, day, time);
    const { recipes, model } = await app.model.recommend({ ...ctx, count, mealType });
    const images = await photosFor(app, recipes, config.PHOTO_SEARCH_BUDGET_MS);
    return app.transaction(async (tx) => {
      const saved = await saveRecipes(tx, recipes, images, 'ai', userId, language);
      const pantryProducts = new Set(ctx.pantryIds.values());
      const items: CachedRecommendation[] = saved.map((s, i) => {
        const r = recipes[i]!;
        const used = new Set<string>();
        for (const ing of r.ingredients)
          if (ing.product_id && pantryProducts.has(ing.product_id)) used.add(ing.product_id);
        for (const name of r.uses_pantry) {
          const id = ctx.pantryIds.get(name.toLowerCase());
          if (id) used.add(id);
        }
        return { recipe_id: s.recipeId, title: r.title, reason: r.reason, uses_products: [...used] };
      });
      const sets = recommendationSetRepository(tx);
      const set = { items, model, asked: count };
      const generated_at = await sets.put(userId, day, language, mealType ?? '', set, refresh);
      // Not stored: a generation for a larger limit, run at the same time, stored its set first, and that one serves.
      return generated_at ? { ...set, generated_at } : (await sets.get(userId, day, language, mealType ?? ''))!;
    });
  }

  app.get(
    '/recommendations',
    {
      schema: {
        tags: ['recommendations'],
        summary: 'Recipes recommended for the user today (cached per user, day, language and meal type)',
        description:
          'Model output that fails validation is retried twice; an unreachable model is 502 `model_unavailable`. ' +
          'A generation counts against the per-user model budget (429 past it); a cached answer does not. The ' +
          'set made for a limit serves later reads of that limit or less, also when the model answered fewer ' +
          'recipes; a larger limit or `refresh=true` generates anew.',
        querystring: Query,
        response: {
          200: Type.Object({
            items: Type.Array(Recommendation),
            model: Nullable(
              Type.String({ description: 'the model that made them; `offline` for the development stand-in' }),
            ),
            generated_at: Timestamp,
          }),
          ...errors(400, 401, 429, 502),
        },
      },
    },
    async (request) => {
      const { limit = 5, meal_type = null, refresh = false } = request.query;
      // Cached per day on the user's clock: a new day there brings new recommendations.
      const time = await app.userTime(request);
      const day = time.today;
      const userId = request.user.id;
      const key = `${userId}|${day}|${request.language}|${meal_type ?? ''}`;
      let set = refresh ? null : await cache.get(userId, day, request.language, meal_type ?? '');
      // The set made for this limit or a larger one, even if the model gave fewer recipes than asked: a read again
      // costs nothing (the model answering 1 of 3 recipes made every read of 3 generate anew).
      if (!set || set.asked < limit) {
        let pending = inflight.get(key);
        if (!pending || pending.asked < limit) {
          app.spendModelBudget(request);
          const mine: InFlight = {
            asked: limit,
            set: generate(userId, time, request.language, meal_type, limit, refresh).finally(() => {
              if (inflight.get(key) === mine) inflight.delete(key);
            }),
          };
          inflight.set(key, mine);
          pending = mine;
        }
        set = await pending.set;
      }
      const items = [];
      for (const item of set.items.slice(0, limit)) {
        const recipe = await catalog.recipeById(userId, item.recipe_id, request.language);
        if (recipe)
          items.push({ ...recipe, title: item.title, reason: item.reason, uses_products: item.uses_products });
      }
      return { items, model: set.model, generated_at: set.generated_at };
    },
  );
};

export default recommendations;
