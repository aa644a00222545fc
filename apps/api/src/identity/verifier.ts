/** Who an identity provider says the user is. */
export interface Identity {
  /** The issuer (`noop` for development logins). */
  provider: string;
  subject: string;
  email: string | null;
}

export interface IdentityVerifier {
  /** Resolves the identity, or throws InvalidIdentityToken. */
  verify(idToken: string): Promise<Identity>;
}

export class InvalidIdentityToken extends Error {}

/** The provider's keys could not be fetched: the login may work later (503, not 401). */
export class IdentityProviderUnavailable extends Error {}
