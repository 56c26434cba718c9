/** The member API of the TRP bridge (SPEC §16): travel addresses. */
import { type Static, Type } from 'typebox';
import { OPTIONAL_BODY } from '../http/documented-as.js';
import { Uuid } from '../transactions/schemas.js';

export const TravelAddress = Type.Object({
  id: Uuid,
  travelAddress: Type.String({
    description: 'What the member’s customer hands to the sending VASP: `ta` + base58check of the URL.',
  }),
  url: Type.String({
    description: 'The inquiry URL the travel address encodes (on the hub’s TRP listener).',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'After this, inquiries to it get 404.' }),
  ),
  revokedAt: Type.Optional(Type.String({ format: 'date-time', description: 'Revoked: inquiries get 404.' })),
});
export type TravelAddress = Static<typeof TravelAddress>;

export const MintRequest = Type.Object(
  {
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the address stops taking inquiries; none: never.',
      }),
    ),
  },
  { additionalProperties: false, [OPTIONAL_BODY]: true },
);
export type MintRequest = Static<typeof MintRequest>;

export const TravelAddressList = Type.Object({
  travelAddresses: Type.Array(TravelAddress),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const TravelAddressQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^(?:[1-9][0-9]?|100)$', description: '1–100, default 50' })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const TravelAddressParams = Type.Object({ id: Uuid }, { additionalProperties: false });
