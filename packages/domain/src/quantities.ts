/**
 * The most one receipt line or product photo can plausibly hold, per unit: a household buys 25 kg of potatoes, not
 * 800 cans of pineapple. Counted units not listed take `COUNTED`.
 */
export const MAX_QUANTITY: Readonly<Record<string, number>> = {
  g: 25_000,
  kg: 25,
  ml: 25_000,
  l: 25,
  piece: 60,
  pack: 30,
  can: 24,
  bottle: 24,
  jar: 24,
  bunch: 10,
  clove: 40,
  leaf: 50,
};
const COUNTED = 30;

/** Why a recognised quantity cannot be right, or null when it can. */
export function implausibleQuantity(quantity: number, unitCode: string): string | null {
  const max = MAX_QUANTITY[unitCode] ?? COUNTED;
  if (!(quantity > 0)) return 'must be more than 0';
  return quantity > max ? `${quantity} ${unitCode} is more than one purchase holds (at most ${max})` : null;
}

/** Grams (mass units) or millilitres (volume units) in one unit, as the units table has them. */
export const UNIT_FACTORS: Readonly<Record<string, number>> = {
  g: 1,
  kg: 1000,
  mg: 0.001,
  oz: 28.3495,
  lb: 453.592,
  pinch: 0.4,
  ml: 1,
  l: 1000,
  dl: 100,
  fl_oz: 29.5735,
  tsp: 5,
  tbsp: 15,
  cup: 240,
  cup_jp: 200,
  glass: 250,
};

/**
 * Why one ingredient line of a recipe (at most 12 servings) cannot be right, or null when it can: a recipe uses no
 * more of an ingredient than one purchase holds (`MAX_QUANTITY`), a mass or volume unit without a bound of its own by
 * its weight or volume (25 kg or 25 l: 881 oz, 100 cups).
 */
export function implausibleRecipeQuantity(quantity: number, unitCode: string): string | null {
  if (!(quantity > 0)) return 'must be more than 0';
  const factor = UNIT_FACTORS[unitCode];
  const max = MAX_QUANTITY[unitCode] ?? (factor ? MAX_QUANTITY.g! / factor : COUNTED);
  return quantity > max
    ? `${quantity} ${unitCode} is more than a recipe uses (at most ${Math.floor(max)} ${unitCode})`
    : null;
}
