import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { badRequest } from './errors.ts';

export const invalidCursor = () => badRequest('cursor is not one this API returned', 'invalid_cursor');

/** Longer than any cursor the API hands out. */
const MAX_CURSOR_LENGTH = 512;

declare module 'fastify' {
  interface FastifyInstance {
    cursors: ReturnType<typeof pageCursors>;
  }
}

/**
 * Opaque page cursors: base64url JSON and a MAC over it and its scope, so that a cursor is good only where it was
 * handed out: a malformed, tampered or foreign cursor (another route's, another user's) is 400 invalid_cursor, never
 * another page and never a 500. The scope is usually `callerScope`; a page shared by every user names its own.
 */
export function pageCursors(secret: string) {
  const key = createHmac('sha256', secret).update('page cursor').digest();
  // 128 bits of the MAC: enough against forgery, and the cursor stays short.
  const mac = (scope: string, payload: string) =>
    createHmac('sha256', key).update(scope).update('\n').update(payload).digest().subarray(0, 16);
  return {
    /** The cursor of the page after `value`. */
    next(scope: string, value: unknown): string {
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${payload}.${mac(scope, payload).toString('base64url')}`;
    },
    /** The position a cursor of `next` for this scope holds: undefined without one, else valid or a 400. */
    after<T>(scope: string, cursor: string | undefined, valid: (value: unknown) => value is T): T | undefined {
      if (cursor === undefined) return undefined;
      const [payload = '', signature = '', extra] = cursor.split('.');
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(scope, payload);
      if (
        cursor.length > MAX_CURSOR_LENGTH ||
        extra !== undefined ||
        given.length !== expected.length ||
        !timingSafeEqual(given, expected)
      )
        throw invalidCursor();
      try {
        const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString());
        if (valid(value)) return value;
      } catch {
        // falls through to the 400
      }
      throw invalidCursor();
    },
  };
}

/** The scope of a page of a route for its caller. */
export const callerScope = (request: FastifyRequest) => `${request.routeOptions.url} ${request.user.id}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** A timestamp as the API writes it (`2026-11-22T10:15:00.000Z`), of a real instant: `2026-02-30` is not one. */
export const isTimestamp = (v: unknown): v is string =>
  typeof v === 'string' &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v) &&
  !Number.isNaN(Date.parse(v)) &&
  new Date(v).toISOString() === v;
