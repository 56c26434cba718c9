/** Shapes of claim links, join applications and credential pickups (SPEC §12). */
import { type Static, Type } from 'typebox';
import { OPTIONAL_BODY } from '../http/documented-as.js';
import { CLAIM_STATES } from './progress.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const TokenParams = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100, description: 'The token of the link.' }) },
  { additionalProperties: false },
);

/** The latest application through a link, as whoever holds the link sees it: no contact data. */
export const LinkApplication = Type.Object(
  {
    status: Type.Enum(['pending', 'approved', 'rejected']),
    appliedAt: Type.String({ format: 'date-time' }),
    decidedAt: Nullable(Type.String({ format: 'date-time' })),
    rejectReason: Nullable(Type.String({ description: 'The operator’s reason, when rejected.' })),
  },
  {
    description:
      'The latest application made through this link: its state, dates and the operator’s reason; never the applicant’s name, DID, endpoint or contact.',
  },
);

export const Announcement = Type.Object(
  {
    transactionRef: Type.String({ format: 'uuid' }),
    transactionAsset: Type.String(),
    transactionAmount: Type.String(),
    destination: Type.String(),
    originator: Type.Object({ name: Type.String(), vaspDid: Type.String() }),
    announcedAt: Type.String({ format: 'date-time' }),
    application: Type.Union([LinkApplication, Type.Null()]),
    canApply: Type.Boolean({
      description:
        'Whether the link takes an application now: none was made, or the latest was rejected, and the announcement named no member.',
    }),
  },
  { description: 'What the claim link announces; never personal data.' },
);

/** NOTIFY progress, shown to the originator only (SPEC §17; claims/progress.ts). */
export const ClaimStep = Type.Object({
  state: Type.Enum([...CLAIM_STATES]),
  at: Type.String({ format: 'date-time' }),
});

export const ClaimProgress = Type.Object(
  {
    state: Type.Enum([...CLAIM_STATES], {
      description:
        '`sent`: the announcement with its link was queued (`delivery` says whether SMTP took it); `opened`: the claim page loaded it (first time); `applied`: an application waits; `rejected`: the operator rejected it, the link takes a new one; `approved`: the applicant joined; `attached`: the transaction is the beneficiary’s.',
    }),
    at: Type.String({ format: 'date-time', description: 'When the claim reached `state`.' }),
    steps: Type.Array(ClaimStep, {
      description: 'Every step, oldest first; `applied` and `rejected` repeat for each application.',
    }),
  },
  { description: 'NOTIFY, to the originator only: how far the claim link got.' },
);

export const ApplicationRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    vaspDid: Type.String({ minLength: 7, maxLength: 512, pattern: '^did:[a-z0-9]+:' }),
    travelEndpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    publicKey: Type.Optional(Type.String({ maxLength: 16384 })),
    contactEmail: Type.String({
      maxLength: 254,
      description: 'Where the operator’s answer and the credentials link go.',
    }),
  },
  { additionalProperties: false },
);
export type ApplicationRequest = Static<typeof ApplicationRequest>;

export const ApplicationStatus = Type.Enum(['pending', 'approved', 'rejected']);

export const ClaimAddressReview = Type.Object(
  {
    address: Type.String({
      description: 'The address the claim link went to; the credentials link goes there too.',
    }),
    chosenBy: Type.Union(
      [
        Type.Object({
          organizationId: Type.String({ format: 'uuid' }),
          name: Type.String(),
          vaspDid: Type.String(),
        }),
        Type.Null(),
      ],
      { description: 'Who chose the address: the originator of the NOTIFY transfer.' },
    ),
    domain: Type.String({ description: 'The address’s registrable domain.' }),
    matchesDid: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'Whether the domain is the applicant DID’s (`did:web`); null for a DID that names no domain.',
    }),
    matchesContact: Type.Boolean({ description: 'Whether the domain is the applicant’s contactEmail’s.' }),
    originatorDomain: Type.Boolean({
      description: 'Whether the domain is the originator’s own (its DID’s or its contact address’s).',
    }),
  },
  {
    description:
      'The address the claim link went to, as the originator chose it (not verified): an applicant who reads that inbox proved only that.',
  },
);

export const Application = Type.Object({
  id: Type.String({ format: 'uuid' }),
  transactionRef: Type.String({ format: 'uuid' }),
  status: ApplicationStatus,
  name: Type.String(),
  vaspDid: Type.String(),
  travelEndpoint: Nullable(Type.String()),
  publicKey: Nullable(Type.String()),
  contactEmail: Type.String(),
  notificationEmail: Type.String({
    description:
      'The address the claim link was sent to. The originator chose it: the applicant proved only that it reads that inbox (see `claimAddress`).',
  }),
  claimAddress: ClaimAddressReview,
  createdAt: Type.String({ format: 'date-time' }),
  decidedAt: Nullable(Type.String({ format: 'date-time' })),
  decidedBy: Nullable(
    Type.String({ description: 'The operator, as `operator:<id>:<name>` (`operator:bootstrap`).' }),
  ),
  rejectReason: Nullable(Type.String()),
  organizationId: Nullable(
    Type.String({ format: 'uuid', description: 'The organization an approval created.' }),
  ),
});
export type Application = Static<typeof Application>;

export const ApplicationAccepted = Type.Object({
  applicationId: Type.String({ format: 'uuid' }),
  status: Type.Literal('pending'),
});

export const ApplicationList = Type.Object({
  applications: Type.Array(Application),
  pending: Type.Integer({ minimum: 0, description: 'Applications waiting for review, whatever the filter.' }),
});

export const ApplicationQuery = Type.Object(
  { status: Type.Optional(ApplicationStatus) },
  { additionalProperties: false },
);

export const ApplicationParams = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const RejectRequest = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 2000, description: 'Sent to the applicant.' }) },
  { additionalProperties: false },
);

export const AttachResult = Type.Object({
  transactionRef: Type.String({ format: 'uuid' }),
  status: Type.String(),
  beneficiaryVASPid: Type.String({ format: 'uuid' }),
});

export const Credentials = Type.Object({
  organization: Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    vaspDid: Type.String(),
  }),
  apiKey: Type.String({ description: 'Shown this once.' }),
  webhookSecret: Type.String({ description: 'Standard Webhooks secret (`whsec_…`). Shown this once.' }),
});

/** The pickup takes no body (a POST, so that a mail scanner that follows links cannot use it up). */
export const EmptyBody = Type.Object({}, { additionalProperties: false, [OPTIONAL_BODY]: true });
