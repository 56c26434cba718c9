/** Shapes of the rules routes (SPEC §15): validator, OpenAPI document and type at once. */
import { Type } from 'typebox';

export const TransferValue = Type.Object(
  {
    amount: Type.String({
      maxLength: 40,
      pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
      description: 'Decimal string; never a number.',
      examples: ['800'],
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.', examples: ['EUR'] }),
  },
  {
    additionalProperties: false,
    description:
      'The transfer’s fiat value as the originator computed it; compared with the jurisdictions’ thresholds ' +
      '(through HUB_FX_RATES when the currencies differ). Without it, thresholds count as reached.',
  },
);

const Regime = Type.Enum(['TRAVEL_RULE', 'BELOW_THRESHOLD'], {
  description:
    'TRAVEL_RULE when any applied rule’s threshold is reached (or it has none, or no rules apply).',
});

const AppliedRule = Type.Object({
  party: Type.Enum(['originator', 'beneficiary'], { description: 'Whose jurisdiction brought the rule.' }),
  jurisdiction: Type.String({ description: 'That party’s jurisdiction (ISO 3166-1 alpha-2).' }),
  entry: Type.String({
    description: 'The rules-table entry used: the country, a group such as EU, or FATF.',
  }),
  name: Type.String(),
  source: Type.String({ description: 'The legal source: law and article.' }),
  date: Type.String({ description: 'When the rule took effect.' }),
  regime: Regime,
  reason: Type.String({ description: 'The threshold and how the value compared with it.' }),
});

export const ValidateResponse = Type.Object({
  valid: Type.Boolean({ description: 'true when nothing the rules require is missing.' }),
  regime: Regime,
  rules: Type.Array(AppliedRule, { description: 'Empty when neither party has a jurisdiction (v1).' }),
  missing: Type.Array(
    Type.Object({
      path: Type.String({ description: 'JSON pointer into the request body.' }),
      message: Type.String({ description: 'What is required, naming the rule’s legal source.' }),
    }),
  ),
});

const Money = Type.Object({ amount: Type.String(), currency: Type.String() });
const Requirement = Type.Union([
  Type.String(),
  Type.Object({ anyOf: Type.Array(Type.Array(Type.String())) }),
]);
const PartyRules = Type.Object({
  originator: Type.Array(Requirement),
  beneficiary: Type.Array(Requirement),
});

export const RuleEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  source: Type.String(),
  date: Type.String(),
  threshold: Type.Union([
    Type.Object({ amount: Type.String(), currency: Type.String(), inclusive: Type.Boolean() }),
    Type.Null(),
  ]),
  above: PartyRules,
  below: Type.Optional(PartyRules),
  countries: Type.Optional(Type.Array(Type.String())),
  selfHostedWallet: Type.Union([Money, Type.Null()]),
  note: Type.Optional(Type.String()),
});

export const RulesTableResponse = Type.Object({
  rules: Type.Array(RuleEntry),
  fxRates: Type.Union([Type.Object({ base: Type.String(), date: Type.String() }), Type.Null()], {
    description: 'The operator’s rates file (HUB_FX_RATES): its base and date; null without one.',
  }),
});

export const TransactionRules = Type.Object({
  regime: Type.Union([Regime, Type.Null()], {
    description: 'null when no rules applied (no jurisdictions).',
  }),
  rules: Type.Array(AppliedRule),
});
