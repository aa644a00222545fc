import { InvalidIdentityToken, type IdentityVerifier } from './verifier.ts';

/**
 * Local development only (refused in production by the config): the id_token string itself is the subject, so the
 * same string always signs into the same user.
 */
export function noopVerifier(): IdentityVerifier {
  return {
    async verify(idToken) {
      if (idToken.length < 1 || idToken.length > 128)
        throw new InvalidIdentityToken('id_token must be 1-128 characters');
      return { provider: 'noop', subject: idToken, email: `${idToken}@dev.local` };
    },
  };
}
