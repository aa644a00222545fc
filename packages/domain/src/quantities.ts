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
