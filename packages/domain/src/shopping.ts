import { gramsOf, type ProductMeasures, type Unit } from './nutrition.ts';

export interface ShoppingNeed {
  productId: string | null;
  /** The catalog product's code (`water`), null for an ingredient only named. */
  productCode?: string | null;
  name: string;
  quantity: number;
  unit: Unit;
  /** The product's default unit decides what a line is counted in: grams, millilitres or pieces. */
  productUnit: Unit | null;
  measures: ProductMeasures;
  categoryCode: string | null;
}

export interface StockItem {
  productId: string;
  quantity: number;
  unit: Unit;
}

export interface ShoppingLine {
  productId: string | null;
  name: string;
  quantity: number;
  unitCode: string;
  categoryCode: string | null;
}

type Dimension = 'g' | 'ml' | 'piece';

const countUnitOf = (need: ShoppingNeed) => (need.productUnit?.kind === 'count' ? need.productUnit.code : 'piece');

function dimensionOf(unit: Unit | null): Dimension {
  if (!unit || unit.kind === 'mass') return 'g';
  if (unit.kind === 'volume') return 'ml';
  return 'piece';
}

/** Ingredients that come from the tap, not the shop: left off the list unless asked for. */
export const TAP_PRODUCTS: ReadonlySet<string> = new Set(['water']);

/**
 * How much is bought for one unit of a recipe's amount: a recipe's weight or volume is of the food itself (300 g of
 * broccoli florets), and of what a shop sells only `edible_portion` is food, so 300 g of it is 300 / 0.61 g as bought.
 * A counted unit (a piece, a clove) is already as bought. The pantry holds what was bought and is taken as it is.
 */
function boughtPerFood(unit: Unit, measures: ProductMeasures): number {
  return unit.kind === 'count' ? 1 : 1 / (measures.ediblePortion ?? 1);
}

/**
 * An amount as bought in a product's dimension (grams, millilitres, or its counted unit: pieces, bunches, cans), or
 * null when it cannot be converted. `food`: the amount is a recipe's (see `boughtPerFood`), not the pantry's.
 */
function amountIn(
  dimension: Dimension,
  quantity: number,
  unit: Unit,
  measures: ProductMeasures,
  countUnit = 'piece',
  food = false,
): number | null {
  const bought = food ? boughtPerFood(unit, measures) : 1;
  if (dimension === 'piece') {
    if (unit.code === countUnit) return quantity;
    const grams = gramsOf(quantity, unit, measures);
    const each = measures.unitGrams[countUnit] ?? (countUnit === 'piece' ? measures.pieceG : null);
    return grams !== null && each ? (grams * bought) / each : null;
  }
  if ((dimension === 'g' && unit.kind === 'mass') || (dimension === 'ml' && unit.kind === 'volume'))
    return quantity * unit.factor! * bought;
  const grams = gramsOf(quantity, unit, measures);
  if (grams === null) return null;
  return dimension === 'g' ? grams * bought : (grams * bought) / (measures.densityGPerMl ?? 1);
}

/**
 * What a shop sells: counted units (pieces, bunches, cans, cloves, leaves) whole and rounded up; grams and millilitres
 * rounded up to a readable step (1 below 10, 5 below 100, 10 below 1000, then kilograms and litres in 0.05 steps).
 */
function present(dimension: Dimension, amount: number, countUnit = 'piece'): { quantity: number; unitCode: string } {
  const up = (x: number, step: number) => Math.round(Math.ceil(x / step - 1e-9) * step * 100) / 100;
  if (dimension === 'piece') return { quantity: Math.max(1, up(amount, 1)), unitCode: countUnit };
  if (amount >= 1000) return { quantity: up(amount / 1000, 0.05), unitCode: dimension === 'g' ? 'kg' : 'l' };
  const step = amount >= 100 ? 10 : amount >= 10 ? 5 : 1;
  return { quantity: up(amount, step), unitCode: dimension };
}

/**
 * The shopping list of a week: the same product summed across recipes in one dimension (g, ml or pieces, converting
 * kg/l/spoons/cups and pieces through densities and piece weights) as bought (a recipe's weights are of the food, so
 * the inedible share is added back), minus what the pantry holds, in what a shop sells. Needs that cannot be
 * converted stay separate lines in their own unit; products fully in stock are left out, and so is tap water unless
 * `includeTap`.
 */
export function shoppingLines(
  needs: ShoppingNeed[],
  stock: StockItem[],
  options: { includeTap?: boolean } = {},
): ShoppingLine[] {
  const lines = new Map<
    string,
    { need: ShoppingNeed; dimension: Dimension | null; amount: number; unitCode: string }
  >();
  for (const need of needs) {
    if (!options.includeTap && need.productCode && TAP_PRODUCTS.has(need.productCode)) continue;
    const dimension = dimensionOf(need.productUnit);
    const amount = need.productId
      ? amountIn(dimension, need.quantity, need.unit, need.measures, countUnitOf(need), true)
      : null;
    const key =
      amount !== null
        ? `${need.productId}|${dimension}`
        : `${need.productId ?? need.name.toLowerCase()}|${need.unit.code}`;
    const line = lines.get(key) ?? {
      need,
      dimension: amount !== null ? dimension : null,
      amount: 0,
      unitCode: need.unit.code,
    };
    // A need that cannot be converted is bought in its own unit, as bought all the same.
    line.amount += amount ?? need.quantity * boughtPerFood(need.unit, need.measures);
    lines.set(key, line);
  }
  for (const item of stock) {
    for (const line of lines.values()) {
      if (line.need.productId !== item.productId || line.dimension === null) continue;
      const held = amountIn(line.dimension, item.quantity, item.unit, line.need.measures, countUnitOf(line.need));
      if (held !== null) line.amount -= held;
    }
  }
  const out: ShoppingLine[] = [];
  for (const line of lines.values()) {
    if (line.amount <= 1e-9) continue;
    // A need that could not be converted is still bought in its own unit: whole counted units, readable amounts.
    const unit = line.need.unit;
    const shown = line.dimension
      ? present(line.dimension, line.amount, countUnitOf(line.need))
      : unit.kind === 'count'
        ? present('piece', line.amount, unit.code)
        : present(dimensionOf(unit), line.amount * unit.factor!);
    out.push({ productId: line.need.productId, name: line.need.name, categoryCode: line.need.categoryCode, ...shown });
  }
  return out;
}
