/** The operator API of TRP counterparties (SPEC §16): the peers the hub knows, by host. */
import { type Static, Type } from 'typebox';
import { Uuid } from '../transactions/schemas.js';

const Host = Type.String({
  pattern: '^[a-z0-9.-]{1,253}(:[0-9]{1,5})?$|^\\[[0-9a-f:.]{2,45}\\](:[0-9]{1,5})?$',
  description: 'The peer’s host as a URL names it: lower-case name or IP address, and a port unless 443.',
});
const Fingerprint = Type.String({
  pattern: '^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$',
  description: 'SHA-256 of the certificate (DER): 32 hex pairs separated by colons.',
});
const ApiVersion = Type.String({
  pattern: '^3\\.[0-9]{1,6}\\.[0-9]{1,6}$',
  description: 'A TRP 3.x version.',
});
const AmountEncoding = Type.Enum(['whole-units-number', 'smallest-unit-string'], {
  description:
    'How the peer writes amounts: a JSON number in whole units, or a digit string in the smallest unit.',
});
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const Counterparty = Type.Object({
  id: Uuid,
  host: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], { description: 'From the peer’s /identity.' }),
  lei: Type.Union([Type.String(), Type.Null()], { description: 'From the peer’s /identity.' }),
  certificateSubject: Type.Union([Type.String(), Type.Null()]),
  certificateFingerprint: Type.Union([Type.String(), Type.Null()], {
    description: 'The certificate it last presented, or the one the operator pinned.',
  }),
  pinned: Type.Boolean({
    description: 'Only the pinned certificate may use this host (and it may, whatever its names).',
  }),
  blocked: Type.Boolean({ description: 'Nothing is sent to it and no inquiry from it is taken.' }),
  apiVersion: Type.Union([ApiVersion, Type.Null()], { description: 'null: the hub’s own (3.2.1).' }),
  amountEncoding: Type.Union([AmountEncoding, Type.Null()], {
    description: 'null: the default (outbound a digit string in the smallest unit).',
  }),
  addedBy: Type.Enum(['hub', 'operator']),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type CounterpartyView = Static<typeof Counterparty>;

export const CounterpartyList = Type.Object({ counterparties: Type.Array(Counterparty) });

export const AddCounterparty = Type.Object(
  {
    host: Host,
    certificateFingerprint: Type.Optional(Fingerprint),
    apiVersion: Type.Optional(ApiVersion),
    amountEncoding: Type.Optional(AmountEncoding),
    blocked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type AddCounterparty = Static<typeof AddCounterparty>;

export const UpdateCounterparty = Type.Object(
  {
    certificateFingerprint: Type.Optional(
      Type.Union([Fingerprint, Type.Null()], { description: 'Pins this certificate; null unpins.' }),
    ),
    apiVersion: Type.Optional(Nullable(ApiVersion)),
    amountEncoding: Type.Optional(Type.Union([AmountEncoding, Type.Null()])),
    blocked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCounterparty = Static<typeof UpdateCounterparty>;

export const CounterpartyParams = Type.Object({ id: Uuid });
