/** Request and response shapes of erasure (SPEC §14). */
import { type Static, Type } from 'typebox';

export const ErasePiiRequest = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'Why (a data-subject request, a court order …); kept in the audit trail, so it must not hold personal data itself.',
    }),
  },
  { additionalProperties: false },
);
export type ErasePiiRequest = Static<typeof ErasePiiRequest>;

export const ErasePiiResponse = Type.Object({
  transactionRef: Type.String({ format: 'uuid' }),
  piiErasedAt: Type.String({ format: 'date-time' }),
});
