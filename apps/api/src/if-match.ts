import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HttpError, validationFailed } from './errors.ts';

/** The `If-Match` header as updates of synced rows document it. */
export const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'the row\'s `version` as the client last saw it (`3`, or as an ETag `"3"` / `W/"3"`): the update is ' +
        'applied only if the row has not changed since, else `412`. Without it the last write wins.',
    }),
  ),
});

/** The version an update is conditional on, or undefined without `If-Match`. */
export function ifMatchVersion(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const match = typeof header === 'string' ? /^\s*(?:W\/)?"?([1-9]\d{0,9})"?\s*$/.exec(header) : null;
  const version = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(version) || version > 2 ** 31 - 1)
    throw validationFailed('/headers/if-match', 'must be the row\'s version, such as 3 or "3"');
  return version;
}

export const preconditionFailed = (what: string) =>
  new HttpError(412, 'version_mismatch', `${what} changed since the version in If-Match: read it again`);
