import type { KeyObject } from 'node:crypto';
import { createVerifier, createDecoder, type DecodedJwt } from 'fast-jwt';
import { JwksCache } from './jwks.ts';
import { textProblem } from '@nutrition/domain';
import { IdentityProviderUnavailable, InvalidIdentityToken, type IdentityVerifier } from './verifier.ts';

export interface OidcProvider {
  name: string;
  /** Accepted `iss` values. */
  issuers: string[];
  /** Accepted `aud` values (client ids, bundle ids, project id). */
  audiences: string[];
  jwksUrl: string;
}

/** Well-known providers, completed by configuration (client ids, project id). */
export const wellKnownProviders = {
  google: (clientIds: string[]): OidcProvider => ({
    name: 'google',
    issuers: ['https://accounts.google.com', 'accounts.google.com'],
    audiences: clientIds,
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
  }),
  firebase: (projectId: string): OidcProvider => ({
    name: 'firebase',
    issuers: [`https://securetoken.google.com/${projectId}`],
    audiences: [projectId],
    jwksUrl: 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com',
  }),
  apple: (clientIds: string[]): OidcProvider => ({
    name: 'apple',
    issuers: ['https://appleid.apple.com'],
    audiences: clientIds,
    jwksUrl: 'https://appleid.apple.com/auth/keys',
  }),
};

const decode = createDecoder({ complete: true });

/** A non-empty string of at most `max` characters that is acceptable as a line of text. */
const isIdentifier = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max && textProblem(value, 'line') === null;

/**
 * Verifies an OpenID Connect id_token: the provider is chosen by `iss`, the signature checked against its JWKS
 * (RS256 or ES256 only: never `none` or a shared secret), and `aud` and `exp` checked.
 */
export function oidcVerifier(providers: OidcProvider[], jwks = new JwksCache()): IdentityVerifier {
  const byIssuer = new Map(providers.flatMap((p) => p.issuers.map((iss) => [iss, p] as const)));
  const verifiers = new Map(
    providers.map((p) => [
      p,
      createVerifier({
        algorithms: ['RS256', 'ES256'],
        allowedIss: p.issuers,
        allowedAud: p.audiences,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: 30_000,
        cache: false,
        key: async (decoded: DecodedJwt) => {
          let key: KeyObject | undefined;
          try {
            key = await jwks.key(p.jwksUrl, decoded.header.kid);
          } catch (err) {
            throw new IdentityProviderUnavailable(`${p.name} keys unavailable: ${(err as Error).message}`);
          }
          if (!key) throw new InvalidIdentityToken('unknown signing key');
          return key.export({ format: 'pem', type: 'spki' }).toString();
        },
      }),
    ]),
  );

  return {
    async verify(idToken) {
      let header: DecodedJwt;
      try {
        header = decode(idToken) as DecodedJwt;
      } catch {
        throw new InvalidIdentityToken('id_token is not a JWT');
      }
      const iss = (header.payload as { iss?: unknown }).iss;
      const provider = typeof iss === 'string' ? byIssuer.get(iss) : undefined;
      if (!provider) throw new InvalidIdentityToken('id_token issuer is not accepted');
      let claims: { sub: unknown; email?: unknown; email_verified?: unknown; iss: string };
      try {
        claims = await verifiers.get(provider)!(idToken);
      } catch (err) {
        if (err instanceof InvalidIdentityToken) throw err;
        const cause = (err as { originalError?: unknown }).originalError;
        if (cause instanceof InvalidIdentityToken || cause instanceof IdentityProviderUnavailable) throw cause;
        throw new InvalidIdentityToken(`id_token rejected: ${(err as Error).message}`);
      }
      // Signed claims are the provider's word, not necessarily well formed: a subject must be an identifier (as OpenID
      // Connect defines it: at most 255 characters) and an email a line of text, or the user row cannot hold them.
      if (!isIdentifier(claims.sub, 255)) throw new InvalidIdentityToken('id_token sub is not an identifier');
      // An address the provider has not verified is not shown as the user's.
      const verified =
        claims.email_verified === undefined || claims.email_verified === true || claims.email_verified === 'true';
      const email = isIdentifier(claims.email, 320) && verified ? claims.email : null;
      return { provider: provider.name, subject: claims.sub, email };
    },
  };
}
