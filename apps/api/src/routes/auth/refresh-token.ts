import { createHash, createHmac, randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** 32 random bytes: the secret half of a refresh token. */
export function newSecret(): Buffer {
  return randomBytes(32);
}

export function hashSecret(secret: Buffer): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** `<token row uuid v7>.<base64url of 32 random bytes>`. */
export function formatRefreshToken(tokenId: string, secret: Buffer): string {
  return `${tokenId}.${secret.toString('base64url')}`;
}

/** Splits a presented refresh token; null for anything not of that form. */
export function parseRefreshToken(token: string): { tokenId: string; secret: Buffer; secretHash: Buffer } | null {
  const [tokenId, encoded, ...rest] = token.split('.');
  if (rest.length > 0 || !tokenId || !encoded || !UUID.test(tokenId) || !/^[A-Za-z0-9_-]{43}$/.test(encoded))
    return null;
  const secret = Buffer.from(encoded, 'base64url');
  return { tokenId, secret, secretHash: hashSecret(secret) };
}

/**
 * The secret of the token a refresh token rotates into, derived from the presented token with a server key: the same
 * token always rotates into the same successor, so every answer to parallel or retried refreshes holds a working
 * refresh token, while nobody without the key can compute it.
 */
export function successorSecret(key: string, presented: { tokenId: string; secret: Buffer }): Buffer {
  return createHmac('sha256', key)
    .update('refresh-successor\0')
    .update(presented.tokenId)
    .update(presented.secret)
    .digest();
}
