import { badRequest } from './errors.ts';

export const invalidCursor = () => badRequest('cursor is not one this API returned', 'invalid_cursor');

/** Opaque page cursors: base64url JSON, checked on the way back in (a tampered cursor is a 400, never a 500). */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string | undefined, valid: (value: unknown) => value is T): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (valid(value)) return value;
  } catch {
    // falls through to the 400
  }
  throw invalidCursor();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** A timestamp as the API writes it (`2026-11-22T10:15:00.000Z`), of a real instant: `2026-02-30` is not one. */
export const isTimestamp = (v: unknown): v is string =>
  typeof v === 'string' &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v) &&
  !Number.isNaN(Date.parse(v)) &&
  new Date(v).toISOString() === v;
