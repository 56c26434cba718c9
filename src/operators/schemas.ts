/** Shapes of the operator API: validator, OpenAPI document and type at once. */
import { type Static, Type } from 'typebox';

export const Operator = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String({
    description:
      'Shown in the audit as `operator:<id>:<name>`; unique among active operators in its NFKC case-folded form.',
  }),
  prefix: Type.String({ description: 'First characters of the operator’s key, to tell keys apart.' }),
  createdBy: Type.String({
    description:
      'The operator who created it, as `operator:<id>:<name>` (`operator:bootstrap`, `operator:cli`).',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Operator = Static<typeof Operator>;

export const CreateOperator = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Unique among active operators (case-insensitive); printable text. `bootstrap` and `cli` are reserved.',
    }),
  },
  { additionalProperties: false },
);

export const CreatedOperator = Type.Object({
  operator: Operator,
  apiKey: Type.String({ description: 'The operator’s key (`trh_op_…`). Shown only once.' }),
});

export const OperatorList = Type.Object({
  operators: Type.Array(
    Type.Object({
      ...Operator.properties,
      current: Type.Boolean({ description: 'true for the operator making the request.' }),
    }),
  ),
});

export const OperatorParams = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
