/** Request and response shapes of the directory: validator, OpenAPI document and type at once. */
import { type Static, Type } from 'typebox';
import { OPTIONAL_BODY } from '../http/documented-as.js';

const Did = Type.String({
  minLength: 7,
  maxLength: 512,
  pattern: '^did:[a-z0-9]+:',
  description: 'Decentralized identifier (W3C DID) of the organization.',
  examples: ['did:web:vasp-a.example'],
});

export const Organization = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Unique identifier of the organization.' }),
    name: Type.String({ description: 'Display name.' }),
    travelEndpoint: Type.Union([Type.String(), Type.Null()], {
      description:
        'Base URL of the organization’s travel rule API; webhooks go to {travelEndpoint}/v1/notify/…',
    }),
    publicKey: Type.Union([Type.String(), Type.Null()], {
      description: 'PEM SubjectPublicKeyInfo (X25519, P-256 or RSA ≥ 2048) used to encrypt messages to it.',
    }),
    vaspDid: Type.String({ description: 'DID of the organization.' }),
    organizationType: Type.Enum(['unverified', 'verified'], {
      description: '`verified` means verified by the hub operator.',
    }),
  },
  { additionalProperties: false },
);
export type Organization = Static<typeof Organization>;

const Jurisdiction = Type.Union(
  [Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', examples: ['DE'] }), Type.Null()],
  { description: 'ISO 3166-1 alpha-2 country code (upper case); null clears it.' },
);
const Lei = Type.Union(
  [Type.String({ minLength: 20, maxLength: 20, examples: ['5493001KJTIIGC8Y1R12'] }), Type.Null()],
  {
    description: 'ISO 17442 Legal Entity Identifier (20 characters, mod 97-10 check digits); null clears it.',
  },
);

const ContactEmail = Type.Union([Type.String({ maxLength: 254 }), Type.Null()], {
  description:
    'Where the hub sends notices about the organization (a change of its travelEndpoint or publicKey). ' +
    'Never shown in the directory.',
});

export const Ivms101Version = Type.Enum(['2020', '2023'], {
  description:
    'The IVMS101 version the organization receives personal data in (confirmed-data, the received JWE, ' +
    '/pii): `2020`, the interface document’s shape, or `2023` (IVMS101.2023). See docs/ivms101.md.',
});

/** The entry as the organization itself and the operator see it: the directory's fields and more. */
export const OrganizationDetail = Type.Object(
  {
    ...Organization.properties,
    contactEmail: ContactEmail,
    ivms101Version: Ivms101Version,
    jurisdiction: Type.Union([Type.String(), Type.Null()], {
      description:
        'ISO 3166-1 alpha-2 country whose travel rule binds the organization (SPEC §15); null: none set, ' +
        'so it brings no rules to a transfer. The directory filters by it (?jurisdiction=) but lists only ' +
        'the interface document’s fields.',
    }),
    lei: Type.Union([Type.String(), Type.Null()], {
      description:
        'Legal Entity Identifier (ISO 17442, check digits verified); the directory filters by it (?lei=).',
    }),
  },
  { additionalProperties: false },
);
export type OrganizationDetail = Static<typeof OrganizationDetail>;

export const OrganizationList = Type.Object({ organizations: Type.Array(Organization) });
export const OrganizationDetailList = Type.Object({ organizations: Type.Array(OrganizationDetail) });

export const DirectoryQuery = Type.Object(
  {
    organizationType: Type.Optional(Type.Enum(['unverified', 'verified'])),
    vaspDid: Type.Optional(Type.String({ maxLength: 512 })),
    jurisdiction: Type.Optional(Type.String({ maxLength: 2, pattern: '^[A-Z]{2}$' })),
    lei: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: false },
);

const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  description:
    'Printable text: no control or bidirectional-override characters, no leading or trailing space.',
});
const Endpoint = Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]);
const PublicKey = Type.Union([Type.String({ maxLength: 16384 }), Type.Null()]);

export const UpdateMyOrganization = Type.Object(
  {
    name: Type.Optional(Name),
    travelEndpoint: Type.Optional(Endpoint),
    publicKey: Type.Optional(PublicKey),
    contactEmail: Type.Optional(ContactEmail),
    ivms101Version: Type.Optional(Ivms101Version),
    jurisdiction: Type.Optional(Jurisdiction),
    lei: Type.Optional(Lei),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'A new name makes a verified organization unverified until the operator verifies it again.',
  },
);

export const CreateOrganization = Type.Object(
  {
    name: Name,
    vaspDid: Did,
    travelEndpoint: Type.Optional(Endpoint),
    publicKey: Type.Optional(PublicKey),
    organizationType: Type.Optional(Type.Enum(['unverified', 'verified'])),
    contactEmail: Type.Optional(ContactEmail),
    ivms101Version: Type.Optional(Ivms101Version),
    jurisdiction: Type.Optional(Jurisdiction),
    lei: Type.Optional(Lei),
  },
  { additionalProperties: false },
);
export type CreateOrganization = Static<typeof CreateOrganization>;

export const UpdateOrganization = Type.Object(
  {
    name: Type.Optional(Name),
    vaspDid: Type.Optional(Did),
    travelEndpoint: Type.Optional(Endpoint),
    publicKey: Type.Optional(PublicKey),
    organizationType: Type.Optional(Type.Enum(['unverified', 'verified'])),
    contactEmail: Type.Optional(ContactEmail),
    ivms101Version: Type.Optional(Ivms101Version),
    jurisdiction: Type.Optional(Jurisdiction),
    lei: Type.Optional(Lei),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateOrganization = Static<typeof UpdateOrganization>;

export const CreatedOrganization = Type.Object({
  organization: OrganizationDetail,
  apiKey: Type.String({ description: 'The organization’s first API key. Shown only once.' }),
  webhookSecret: Type.String({ description: 'Standard Webhooks secret (`whsec_…`). Shown only once.' }),
});

const Scope = Type.Enum(['full', 'read'], {
  description:
    '`full`: every right of the organization; `read`: GET requests only (the audited /pii read included).',
});

const KeyLabel = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
  description: 'What the key is for (e.g. "payments backend"); shown in key lists and the audit.',
});
const KeyOwner = Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
  description: 'The id of the person (a user of the organization) who answers for the key.',
});

export const ApiKeyInfo = Type.Object({
  keyId: Type.String({ format: 'uuid' }),
  prefix: Type.String({ description: 'First characters of the key, to tell keys apart.' }),
  scope: Scope,
  label: KeyLabel,
  owner: KeyOwner,
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const ApiKeyList = Type.Object({ apiKeys: Type.Array(ApiKeyInfo) });

export const MyApiKeyList = Type.Object({
  apiKeys: Type.Array(
    Type.Object({
      ...ApiKeyInfo.properties,
      current: Type.Boolean({ description: 'true for the key that made this request.' }),
    }),
  ),
});

export const CreatedApiKey = Type.Object({
  apiKey: Type.String({ description: 'The new API key. Shown only once.' }),
  keyId: Type.String({ format: 'uuid' }),
  scope: Scope,
  label: KeyLabel,
  owner: KeyOwner,
});

export const CreateApiKey = Type.Object(
  { scope: Type.Optional(Scope), label: Type.Optional(KeyLabel), owner: Type.Optional(KeyOwner) },
  {
    additionalProperties: false,
    description:
      'The new key’s scope (`full` when absent), label and owner (when a signed-in person creates it and names ' +
      'no owner: that person). The body may be left out.',
    [OPTIONAL_BODY]: true,
  },
);

export const RotatedSecret = Type.Object({
  webhookSecret: Type.String({ description: 'The new Standard Webhooks secret. Shown only once.' }),
  previousSecretValidUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Until then deliveries are signed with both the new and the previous secret.',
  }),
});

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const KeyIdParams = Type.Object(
  { keyId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const Counterparty = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    vaspDid: Type.String(),
    organizationType: Type.Enum(['unverified', 'verified']),
    verifiedVia: Type.Union([Type.Enum(['operator', 'application']), Type.Null()], {
      description:
        'Who verified it: `operator` (the hub operator set the badge), `application` (it joined through the ' +
        'self-service application, which the operator approved); null while unverified.',
    }),
    verifiedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    jurisdiction: Type.Union([Type.String(), Type.Null()]),
    lei: Type.Union([Type.String(), Type.Null()]),
    delivery: Type.Object(
      {
        delivered: Type.Integer({ minimum: 0 }),
        pending: Type.Integer({ minimum: 0 }),
        retrying: Type.Integer({ minimum: 0 }),
        failed: Type.Integer({ minimum: 0 }),
      },
      {
        description:
          'The caller’s messages to it: webhooks the hub sent it about transactions between the two, by state.',
      },
    ),
  },
  { additionalProperties: false },
);
export type Counterparty = Static<typeof Counterparty>;
export const CounterpartyList = Type.Object({ counterparties: Type.Array(Counterparty) });
