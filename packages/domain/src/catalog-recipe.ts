/**
 * A catalog recipe with its ingredients and steps in one language: what the database's offline-model feed reads and
 * the offline model plans from.
 */
export interface CatalogRecipe {
  dish_id: string;
  category_code: string | null;
  cuisine_code: string | null;
  tags: string[];
  title: string;
  english_title: string;
  servings: number;
  prep_minutes: number | null;
  cook_minutes: number | null;
  calories: number;
  protein: number;
  fat: number;
  carbs: number;
  ingredients: { product_id: string; name: string; quantity: number; unit: string }[];
  steps: string[];
}
