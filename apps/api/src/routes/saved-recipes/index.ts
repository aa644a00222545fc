import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { savedRecipeRepository } from '@nutrition/db/repositories';
import {
  named,
  Cursor,
  errors,
  IdParams,
  Limit,
  Nullable,
  NutrientsPerServing,
  Page,
  Timestamp,
  Uuid,
  ClientId,
  Version,
} from '../../schemas.ts';
import { notFound } from '../../errors.ts';
import { callerScope, isUuid } from '../../cursor.ts';
import { createOnce } from '../../client-ids.ts';

export const Bookmark = named(
  'SavedRecipe',
  Type.Object({
    id: Uuid,
    recipe_id: Uuid,
    dish_id: Uuid,
    name: Type.String(),
    image_url: Nullable(Type.String()),
    calories_per_serving: Nullable(Type.Number()),
    protein_per_serving: Nullable(Type.Number()),
    fat_per_serving: Nullable(Type.Number()),
    carbs_per_serving: Nullable(Type.Number()),
    ...NutrientsPerServing,
    saved_at: Timestamp,
    version: Version,
  }),
);

/** Bookmarked recipes; name and nutrition derived from the recipe at read time. */
const savedRecipes: FastifyPluginAsyncTypebox = async (app) => {
  const saved = savedRecipeRepository(app.sql);
  app.addHook('onRequest', app.authenticate);

  app.post(
    '/saved-recipes',
    {
      schema: {
        tags: ['saved recipes'],
        summary: 'Bookmark a recipe: 201 when new, 200 with the existing bookmark when already saved',
        description:
          'With a client-made `id`, a new bookmark takes it; a recipe already saved answers its existing bookmark ' +
          '(whose id the client then adopts).',
        body: named(
          'NewSavedRecipe',
          Type.Object({ id: Type.Optional(ClientId), recipe_id: Uuid }, { additionalProperties: false }),
        ),
        response: { 200: Bookmark, 201: Bookmark, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      createOnce(app, request, reply, {
        kind: 'saved_recipes',
        id: request.body.id,
        body: request.body,
        read: (id) => saved.get(request.user.id, id, request.language),
        create: async (tx, client) => {
          const bookmarks = savedRecipeRepository(tx);
          const result = await bookmarks.save(request.user.id, request.body.recipe_id, client);
          if (!result) throw notFound('Recipe');
          return {
            status: result.created ? 201 : 200,
            body: (await bookmarks.get(request.user.id, result.id, request.language))!,
          };
        },
      }),
  );

  app.get(
    '/saved-recipes',
    {
      schema: {
        tags: ['saved recipes'],
        summary: 'Bookmarks, newest first',
        description: 'With `recipe_id`, the bookmark of that recipe or none: whether a recipe is saved.',
        querystring: Type.Object(
          { limit: Type.Optional(Limit), cursor: Type.Optional(Cursor), recipe_id: Type.Optional(Uuid) },
          { additionalProperties: false },
        ),
        response: { 200: Page(Bookmark), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 20;
      const rows = await saved.list(
        request.user.id,
        request.language,
        limit + 1,
        app.cursors.after(callerScope(request), request.query.cursor, isUuid),
        request.query.recipe_id,
      );
      const items = rows.slice(0, limit);
      return {
        items,
        next_cursor: rows.length > limit ? app.cursors.next(callerScope(request), items.at(-1)!.id) : null,
      };
    },
  );

  app.delete(
    '/saved-recipes',
    {
      schema: {
        tags: ['saved recipes'],
        summary: 'Remove the bookmark of a recipe',
        querystring: Type.Object({ recipe_id: Uuid }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await saved.deleteByRecipe(request.user.id, request.query.recipe_id))) throw notFound('Saved recipe');
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/saved-recipes/:id',
    {
      schema: {
        tags: ['saved recipes'],
        summary: 'One bookmark',
        params: IdParams,
        response: { 200: Bookmark, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const bookmark = await saved.get(request.user.id, request.params.id, request.language);
      if (!bookmark) throw notFound('Saved recipe');
      return bookmark;
    },
  );

  app.delete(
    '/saved-recipes/:id',
    {
      schema: {
        tags: ['saved recipes'],
        summary: 'Remove a bookmark',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await saved.delete(request.user.id, request.params.id))) throw notFound('Saved recipe');
      return reply.status(204).send(null);
    },
  );
};

export default savedRecipes;
