import type { Queryable } from '../client.ts';

/** One recommended recipe as a set keeps it (the recipe itself is read again for each answer). */
export interface CachedRecommendation {
  recipe_id: string;
  title: string;
  reason: string;
  uses_products: string[];
}

/** A day's recommendations for one language and meal type, and how many recipes the model was asked for. */
export interface RecommendationSet {
  items: CachedRecommendation[];
  model: string | null;
  /** The limit the set was made for: the model may answer fewer, and the set serves every read up to it. */
  asked: number;
  generated_at: Date;
}

/** Recommendation sets cached per user, day, language and meal type (`''` for none). */
export function recommendationSetRepository(sql: Queryable) {
  return {
    /** Sets stored before `asked` was kept count as asked for as many recipes as they hold. */
    async get(userId: string, day: string, language: string, mealType: string): Promise<RecommendationSet | null> {
      const [row] = await sql<RecommendationSet[]>`
        SELECT items, model, COALESCE(asked, jsonb_array_length(items)) AS asked, generated_at
        FROM recommendation_sets
        WHERE user_id = ${userId} AND day = ${day} AND language_code = ${language} AND meal_type = ${mealType}`;
      return row ?? null;
    },

    /**
     * Stores the set in place of the one before, unless that one was made for a larger limit and `replace` is not
     * asked (a refresh): answers its generated_at, or null when the stored set stays.
     */
    async put(
      userId: string,
      day: string,
      language: string,
      mealType: string,
      set: { items: CachedRecommendation[]; model: string; asked: number },
      replace: boolean,
    ): Promise<Date | null> {
      const [row] = await sql<{ generated_at: Date }[]>`
        INSERT INTO recommendation_sets (user_id, day, language_code, meal_type, items, model, asked)
        VALUES (${userId}, ${day}, ${language}, ${mealType}, ${JSON.stringify(set.items)}::jsonb, ${set.model},
                ${set.asked})
        ON CONFLICT (user_id, day, language_code, meal_type)
          DO UPDATE SET items = excluded.items, model = excluded.model, asked = excluded.asked, generated_at = now()
          WHERE ${replace}
             OR excluded.asked >= COALESCE(recommendation_sets.asked, jsonb_array_length(recommendation_sets.items))
        RETURNING generated_at`;
      return row?.generated_at ?? null;
    },
  };
}
