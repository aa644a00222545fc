/** GTIN check digit: weights 3,1,3,1… from the rightmost payload digit. */
export function gtinCheckDigit(payload: string): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    const digit = payload.charCodeAt(payload.length - 1 - i) - 48;
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

export function hasValidCheckDigit(code: string): boolean {
  return /^\d{8,14}$/.test(code) && gtinCheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}

/**
 * The one form a barcode is stored and looked up in: EAN-8 stays 8 digits; UPC-A (12), EAN-13 and GTIN-14 with
 * leading zeros all become the EAN-13 of the same product, so a UPC-A and its EAN-13 find the same row.
 * Null for anything that is not a GTIN with a valid check digit.
 */
export function normalizeBarcode(input: string): string | null {
  const code = input.trim();
  if (!hasValidCheckDigit(code)) return null;
  if (code.length === 8) return code;
  if (code.length < 12) return null;
  const ean13 = code.padStart(13, '0');
  if (ean13.length === 14) return ean13.startsWith('0') ? ean13.slice(1) : null;
  return ean13;
}
