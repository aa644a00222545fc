import { gramsOf, type ProductMeasures, type Unit } from './nutrition.ts';

export interface ShoppingNeed {
  productId: string | null;
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

function dimensionOf(unit: Unit | null): Dimension {
  if (!unit || unit.kind === 'mass') return 'g';
  if (unit.kind === 'volume') return 'ml';
  return 'piece';
}

/** An amount in a product's dimension (grams, millilitres or pieces), or null when it cannot be converted. */
function amountIn(dimension: Dimension, quantity: number, unit: Unit, measures: ProductMeasures): number | null {
  if (dimension === 'piece') {
    if (unit.code === 'piece') return quantity;
    const grams = gramsOf(quantity, unit, measures);
    return grams !== null && measures.pieceG ? grams / measures.pieceG : null;
  }
  if ((dimension === 'g' && unit.kind === 'mass') || (dimension === 'ml' && unit.kind === 'volume'))
    return quantity * unit.factor!;
  const grams = gramsOf(quantity, unit, measures);
  if (grams === null) return null;
  return dimension === 'g' ? grams : grams / (measures.densityGPerMl ?? 1);
}

/** A readable quantity: kilograms and litres from 1000 up, whole pieces rounded up, otherwise to 0.1 … 5 g steps. */
function present(dimension: Dimension, amount: number): { quantity: number; unitCode: string } {
  if (dimension === 'piece') return { quantity: Math.ceil(amount - 1e-9), unitCode: 'piece' };
  if (amount >= 1000) return { quantity: Math.round(amount / 10) / 100, unitCode: dimension === 'g' ? 'kg' : 'l' };
  const step = amount >= 100 ? 5 : amount >= 10 ? 1 : 0.1;
  return { quantity: Math.round(Math.ceil(amount / step - 1e-9) * step * 10) / 10, unitCode: dimension };
}

/**
 * The shopping list of a week: the same product summed across recipes in one dimension (g, ml or pieces, converting
 * kg/l/spoons/cups and pieces through densities and piece weights), minus what the pantry holds, in readable units.
 * Needs that cannot be converted stay separate lines in their own unit; products fully in stock are left out.
 */
export function shoppingLines(needs: ShoppingNeed[], stock: StockItem[]): ShoppingLine[] {
  const lines = new Map<
    string,
    { need: ShoppingNeed; dimension: Dimension | null; amount: number; unitCode: string }
  >();
  for (const need of needs) {
    const dimension = dimensionOf(need.productUnit);
    const amount = need.productId ? amountIn(dimension, need.quantity, need.unit, need.measures) : null;
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
    line.amount += amount ?? need.quantity;
    lines.set(key, line);
  }
  for (const item of stock) {
    for (const line of lines.values()) {
      if (line.need.productId !== item.productId || line.dimension === null) continue;
      const held = amountIn(line.dimension, item.quantity, item.unit, line.need.measures);
      if (held !== null) line.amount -= held;
    }
  }
  const out: ShoppingLine[] = [];
  for (const line of lines.values()) {
    if (line.amount <= 1e-9) continue;
    const shown = line.dimension
      ? present(line.dimension, line.amount)
      : { quantity: Math.round(line.amount * 100) / 100, unitCode: line.unitCode };
    out.push({ productId: line.need.productId, name: line.need.name, categoryCode: line.need.categoryCode, ...shown });
  }
  return out;
}
