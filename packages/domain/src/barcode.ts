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
 * The one form a barcode is stored and looked up in, whatever form it came in: a GTIN padded with zeros on the left
 * is the same GTIN (the check digit counts from the right), so every form becomes its shortest standard one. EAN-8
 * (also zero-padded to 10, 12, 13 or 14 digits: GS1 puts GTIN-8 after five zeros in 13 digits) stays 8 digits; UPC-A,
 * EAN-13 and GTIN-14 with a leading zero become the EAN-13; a GTIN-14 with an indicator digit stays 14 digits.
 * Null for anything that is not a GTIN with a valid check digit.
 */
export function normalizeBarcode(input: string): string | null {
  const code = input.trim();
  if (!hasValidCheckDigit(code)) return null;
  const gtin14 = code.padStart(14, '0');
  if (gtin14.startsWith('000000')) return gtin14.slice(6);
  if (code.length < 12 && code.length !== 8) return null;
  return gtin14.startsWith('0') ? gtin14.slice(1) : gtin14;
}

/**
 * A dump row's code as stored: its normal form, or, when its check digit is wrong (a typo in the source data), the
 * digits as given, so the product is still imported and found by name. Null when it is no code at all.
 */
export function importedBarcode(input: string): { barcode: string; checked: boolean } | null {
  const normal = normalizeBarcode(input);
  if (normal) return { barcode: normal, checked: true };
  const code = input.trim();
  return /^\d{8,14}$/.test(code) ? { barcode: code, checked: false } : null;
}

/**
 * Restricted-circulation numbers (GS1 prefixes 020-029, 040-049, 200-299; GS1-8 prefixes 0 and 2): shops print them
 * on their own labels, often with a weight or price inside, so the same code means different things in different
 * shops. Takes a normalized code.
 */
export function isRestrictedCirculation(normal: string): boolean {
  if (normal.length === 8) return normal[0] === '0' || normal[0] === '2';
  return normal.length === 13 && /^(?:2|0[24])/.test(normal);
}
