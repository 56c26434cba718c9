/**
 * Shapes of the overview routes: transfers per day (members and the operator), and the operator's
 * transaction list and per-organization counts. Metadata only: no personal data, no addresses,
 * no NOTIFY e-mail address.
 */
import { type Static, Type } from 'typebox';
import { Protocol, Ref, Status } from './schemas.js';
import { PROTOCOLS, STATES } from './state-machine.js';

const Count = Type.Integer({ minimum: 0 });
const ByStatus = Type.Object(
  Object.fromEntries(STATES.map((s) => [s, Count])) as Record<string, typeof Count>,
);
const ByProtocol = Type.Object(
  Object.fromEntries(PROTOCOLS.map((p) => [p, Count])) as Record<string, typeof Count>,
);
const Uuid = Type.String({ format: 'uuid' });

export const DailyQuery = Type.Object(
  {
    days: Type.Optional(
      Type.String({
        pattern: '^(?:[1-9][0-9]?|[12][0-9][0-9]|3[0-5][0-9]|36[0-6])$',
        description: '1–366, default 30',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DailyQuery = Static<typeof DailyQuery>;

export const AdminDailyQuery = Type.Object(
  { ...DailyQuery.properties, orgId: Type.Optional(Uuid) },
  { additionalProperties: false },
);
export type AdminDailyQuery = Static<typeof AdminDailyQuery>;

export const DailyStats = Type.Object(
  {
    from: Type.String({ format: 'date', description: 'The first UTC day.' }),
    to: Type.String({ format: 'date', description: 'The last UTC day (today, in UTC).' }),
    days: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date' }),
        total: Count,
        byStatus: ByStatus,
        byProtocol: ByProtocol,
      }),
      { description: 'One entry per UTC day, oldest first; days without transfers count zero.' },
    ),
  },
  {
    description:
      'Transfers created per UTC day, counted by their current status and by protocol. Metadata only.',
  },
);
export type DailyStats = Static<typeof DailyStats>;

export const AdminListQuery = Type.Object(
  {
    status: Type.Optional(Status),
    protocol: Type.Optional(Protocol),
    orgId: Type.Optional(Type.String({ format: 'uuid', description: 'Either party is this organization.' })),
    limit: Type.Optional(
      Type.String({ pattern: '^(?:[1-9][0-9]?|1[0-9][0-9]|200)$', description: '1–200, default 50' }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    format: Type.Optional(
      Type.Enum(['json', 'csv'], {
        description:
          '`csv`: every matching transaction (no paging) as a CSV file, streamed; `json` by default.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AdminListQuery = Static<typeof AdminListQuery>;

export const AdminTransaction = Type.Object(
  {
    transactionRef: Ref,
    status: Status,
    protocol: Protocol,
    transactionAsset: Type.String(),
    transactionAmount: Type.String(),
    originatorVASPid: Type.Union([Type.String(), Type.Null()], {
      description: 'null for an inbound TRP transfer (its originator is a TRP VASP).',
    }),
    originatorVASPdid: Type.String(),
    beneficiaryVASPid: Type.Union([Type.String(), Type.Null()]),
    beneficiaryVASPdid: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A transaction as the operator sees it: metadata only, never personal data or addresses.' },
);
export type AdminTransaction = Static<typeof AdminTransaction>;

export const AdminTransactionList = Type.Object({
  transactions: Type.Array(AdminTransaction),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const OrgCountsQuery = Type.Object({ orgId: Uuid }, { additionalProperties: false });

export const OrgTransactionCounts = Type.Object({
  organizationId: Uuid,
  asOriginator: Count,
  asBeneficiary: Count,
  byStatus: Type.Object(
    Object.fromEntries(
      STATES.map((s) => [s, Type.Object({ asOriginator: Count, asBeneficiary: Count })]),
    ) as Record<string, ReturnType<typeof Type.Object>>,
  ),
});
export type OrgTransactionCounts = Static<typeof OrgTransactionCounts>;
