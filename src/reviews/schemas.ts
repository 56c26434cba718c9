/** Request and response shapes of reviews and the queue (SPEC §17); one schema per shape. */
import { type Static, Type } from 'typebox';
import { NOTE_MAX, REVIEW_STATES } from './states.js';

const Uuid = Type.String({ format: 'uuid' });

export const ReviewStateSchema = Type.Enum([...REVIEW_STATES], {
  description:
    'open (nobody has taken it up; also a transaction never reviewed), in_review, cleared, escalated.',
});

export const ReviewRequest = Type.Object(
  {
    state: ReviewStateSchema,
    note: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: NOTE_MAX,
        description: `A note added to the caller's review (at most ${NOTE_MAX} characters). Sealed at rest; never shown to the counterparty.`,
      }),
    ),
    assigneeUserId: Type.Optional(
      Type.Union([Uuid, Type.Null()], {
        description:
          'An analyst or admin of the caller’s organization to assign; null unassigns; absent keeps the assignee.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReviewRequest = Static<typeof ReviewRequest>;

const Person = Type.Object({ id: Uuid, name: Type.String() });

export const ReviewNote = Type.Object({
  at: Type.String({ format: 'date-time' }),
  by: Type.Object(
    { id: Type.Union([Uuid, Type.Null()]), name: Type.String() },
    { description: 'The person who wrote it, or an API key (id null, name `API key`).' },
  ),
  text: Type.Union([Type.String(), Type.Null()], {
    description:
      'The note; null for a caller whose role may not read personal data (a viewer), since notes may name people, and once erased with the transaction’s personal data (`piiErasedAt`).',
  }),
});

export const Review = Type.Object(
  {
    state: ReviewStateSchema,
    assignee: Type.Union([Person, Type.Null()]),
    notes: Type.Array(ReviewNote),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the review last changed; null while never reviewed.',
    }),
  },
  { description: 'The caller’s own review of the transaction; the counterparty’s is never shown.' },
);
export type Review = Static<typeof Review>;

export const Assignees = Type.Object({
  assignees: Type.Array(
    Type.Object({ id: Uuid, name: Type.String(), role: Type.Enum(['analyst', 'admin']) }),
  ),
});

export const Queue = Type.Object({
  toConfirm: Type.Integer({
    minimum: 0,
    description: 'Transfers waiting for the caller to confirm; the list `?needs=confirm` shows them.',
  }),
  toReview: Type.Integer({
    minimum: 0,
    description: 'Transfers waiting for the caller’s review; the list `?needs=review` shows them.',
  }),
  failingDeliveries: Type.Integer({
    minimum: 0,
    description:
      'Transfers with a failing message to the counterparty; the list `?delivery=failing` shows them.',
  }),
});

export const AdminQueue = Type.Object({
  pendingApplications: Type.Integer({
    minimum: 0,
    description:
      'Join applications waiting for the operator; `GET /v1/admin/applications?status=pending` lists them.',
  }),
});
