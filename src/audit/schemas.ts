/** Shapes of the audit readers, checkpoint and verification (SPEC §14). */
import { type Static, Type } from 'typebox';

const Hash = Type.String({
  pattern: '^[0-9a-f]{64}$',
  description: 'SHA-256, 64 lower-case hex characters.',
});
const Seq = Type.Integer({ minimum: 0, description: 'Place in the chain: 1, 2, 3, … (0: the empty chain).' });

export const AuditEventSchema = Type.Object({
  seq: Seq,
  at: Type.String({ format: 'date-time' }),
  actor: Type.String({ description: '`operator:<name>`, `org:<id>`, `claim:<ref>`, `trp:<host>` or `hub`.' }),
  action: Type.String({ description: 'What happened, e.g. `api_key.created`, `transaction.pii_read`.' }),
  subjectType: Type.String(),
  subjectId: Type.String(),
  details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: 'What changed; never personal data or secrets.',
  }),
  prevHash: Hash,
  hash: Hash,
});

export const AuditPage = Type.Object({
  events: Type.Array(AuditEventSchema, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const CheckpointSchema = Type.Object({
  seq: Seq,
  hash: Hash,
  at: Type.String({ format: 'date-time', description: 'When the hub signed the head.' }),
  signature: Type.String({
    description: 'base64 Ed25519 signature over the RFC 8785 JSON of `{ seq, hash, at }`.',
  }),
  publicKey: Type.String({ description: 'The audit key’s public half, PEM (SPKI).' }),
});

export const VerifyAnswer = Type.Object({
  ok: Type.Boolean(),
  rows: Type.Integer({ minimum: 0, description: 'Rows checked.' }),
  head: Type.Object({ seq: Seq, hash: Hash }, { description: 'The last row that checked out.' }),
  broken: Type.Optional(
    Type.Object(
      { seq: Type.Integer(), reason: Type.String() },
      { description: 'The first broken row and why.' },
    ),
  ),
});

export const ChainStatusAnswer = Type.Object(
  {
    ok: Type.Boolean({ description: 'Whether every row checked out in the walk of `checkedAt`.' }),
    rows: Type.Integer({ minimum: 0, description: 'Rows that walk checked.' }),
    head: Type.Object({ seq: Seq, hash: Hash }, { description: 'The last row that checked out.' }),
    broken: Type.Optional(
      Type.Object(
        { seq: Type.Integer(), reason: Type.String() },
        { description: 'The first broken row and why (row numbers and hashes only, never a row’s content).' },
      ),
    ),
    checkedAt: Type.String({ format: 'date-time', description: 'When that walk began.' }),
    refreshAfter: Type.String({
      format: 'date-time',
      description: 'From then on, the next status request starts a new walk (at most one per interval).',
    }),
  },
  { description: 'The chain’s verified state as of the hub’s most recent walk (this process’s).' },
);

const common = {
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  transactionRef: Type.Optional(Type.String({ format: 'uuid' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'From this time on (inclusive).' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Before this time (exclusive).' })),
  limit: Type.Optional(Type.String({ pattern: '^(?:[1-9][0-9]?|100)$', description: '1–100, default 50' })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
  format: Type.Optional(
    Type.Enum(['jsonl', 'csv'], {
      description:
        'Stream every matching row as an export (oldest first), ending with a signed checkpoint; ' +
        '`limit` and `cursor` do not apply.',
    }),
  ),
};

export const AdminAuditQuery = Type.Object(
  { ...common, organizationId: Type.Optional(Type.String({ format: 'uuid' })) },
  { additionalProperties: false },
);
export const OrgAuditQuery = Type.Object(common, { additionalProperties: false });

export type AdminAuditQuery = Static<typeof AdminAuditQuery>;
