import { Type } from 'typebox';
import { named, Nullable, Uuid } from '../../schemas.ts';

export const LoginBody = Type.Object(
  {
    id_token: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'identity-provider token (noop: any 1-128 chars)',
    }),
  },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object(
  { refresh_token: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const TokenPair = named(
  'TokenPair',
  Type.Object({
    access_token: Type.String(),
    refresh_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'seconds (900)' }),
    refresh_expires_in: Type.Integer({ description: 'seconds (2592000)' }),
    user: Type.Object({ id: Uuid, email: Nullable(Type.String()), is_new: Type.Boolean() }),
  }),
);
