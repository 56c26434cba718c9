/**
 * The rules evaluator (SPEC §15). Pure: from the two parties' jurisdictions, the transfer's value
 * and its personal data (IVMS101 in the hub's canonical 2020 spelling), it works out which table
 * entries apply, whether each one's threshold is reached, and what required data is missing.
 *
 * Invariants:
 * - No jurisdiction on either side: no rules, always valid (v1 behaviour).
 * - Each side's jurisdiction brings its entry (its own, its group's such as the EU, else FATF); the
 *   transfer must meet both, so the stricter of the two holds for every item.
 * - A value that cannot be compared with a threshold (no transferValue, or no rate between the
 *   currencies) counts as above it: the hub never relaxes a rule for want of data.
 * - Every missing item is one problem with a JSON pointer into the request and a message that
 *   names the rule's source; no message contains submitted values (they are personal data).
 */
import type { FieldProblem } from '../text/json-pointer.js';
import { compareMoney, type FxRates } from './fx.js';
import type { Item, Money, PartyRules, Requirement, RuleEntry, RulesTable } from './table.js';

export type Regime = 'TRAVEL_RULE' | 'BELOW_THRESHOLD';
export type Party = 'originator' | 'beneficiary';

export interface AppliedRule {
  /** Whose jurisdiction brought the rule. */
  party: Party;
  /** That party's jurisdiction (ISO 3166-1 alpha-2). */
  jurisdiction: string;
  /** The table entry used for it (the country itself, a group such as EU, or FATF). */
  entry: string;
  name: string;
  source: string;
  date: string;
  regime: Regime;
  /** Why this regime: the threshold and how the value compared with it. */
  reason: string;
}

export interface Evaluation {
  valid: boolean;
  regime: Regime;
  rules: AppliedRule[];
  missing: FieldProblem[];
}

export interface TransferFacts {
  originatorJurisdiction: string | null;
  beneficiaryJurisdiction: string | null;
  transferValue?: Money;
  pii: unknown;
}

export function evaluate(table: RulesTable, fx: FxRates, facts: TransferFacts): Evaluation {
  const rules: AppliedRule[] = [];
  const missing: FieldProblem[] = [];
  const seen = new Set<string>();
  const sides: [Party, string | null][] = [
    ['originator', facts.originatorJurisdiction],
    ['beneficiary', facts.beneficiaryJurisdiction],
  ];
  for (const [party, jurisdiction] of sides) {
    if (jurisdiction === null) continue;
    const entry = table.forCountry(jurisdiction);
    const { regime, reason } = regimeOf(entry, fx, facts.transferValue);
    rules.push({
      party,
      jurisdiction,
      entry: entry.id,
      name: entry.name,
      source: entry.source,
      date: entry.date,
      regime,
      reason,
    });
    const required: PartyRules = regime === 'TRAVEL_RULE' ? entry.above : (entry.below ?? entry.above);
    for (const problem of [
      ...missingFor('originator', required.originator, facts.pii, entry),
      ...missingFor('beneficiary', required.beneficiary, facts.pii, entry),
    ]) {
      // The first rule to ask for an item names it; the other asks for the same path.
      if (seen.has(problem.path)) continue;
      seen.add(problem.path);
      missing.push(problem);
    }
  }
  const regime: Regime =
    rules.length === 0 || rules.some((r) => r.regime === 'TRAVEL_RULE') ? 'TRAVEL_RULE' : 'BELOW_THRESHOLD';
  return { valid: missing.length === 0, regime, rules, missing };
}

function regimeOf(
  entry: RuleEntry,
  fx: FxRates,
  value: Money | undefined,
): { regime: Regime; reason: string } {
  const t = entry.threshold;
  if (t === null) return { regime: 'TRAVEL_RULE', reason: 'no threshold: applies to every transfer' };
  const limit = `${t.inclusive ? 'from' : 'above'} ${t.amount} ${t.currency}`;
  if (value === undefined) {
    return {
      regime: 'TRAVEL_RULE',
      reason: `threshold ${limit}; no transferValue given, so counted as above`,
    };
  }
  const sign = compareMoney(fx, value, t);
  if (sign === undefined) {
    return {
      regime: 'TRAVEL_RULE',
      reason: `threshold ${limit}; no rate between ${value.currency} and ${t.currency}, so counted as above`,
    };
  }
  const above = sign > 0 || (sign === 0 && t.inclusive);
  return { regime: above ? 'TRAVEL_RULE' : 'BELOW_THRESHOLD', reason: `threshold ${limit}` };
}

/** The IVMS101 element each item stands for, on a natural or a legal person. */
const FIELD: Record<Exclude<Item, 'accountNumber'>, string> = {
  name: 'name',
  address: 'geographicAddress',
  nationalIdentification: 'nationalIdentification',
  customerIdentification: 'customerIdentification',
  dateAndPlaceOfBirth: 'dateAndPlaceOfBirth',
};

function missingFor(
  party: Party,
  requirements: Requirement[],
  pii: unknown,
  entry: RuleEntry,
): FieldProblem[] {
  if (requirements.length === 0) return [];
  const because = `required by ${entry.name} (${entry.source})`;
  const side = member(pii, party);
  const personsKey = party === 'originator' ? 'originatorPersons' : 'beneficiaryPersons';
  const sidePath = `/pii/${party}`;
  const out: FieldProblem[] = [];
  if (requirements.includes('accountNumber') && !hasText(member(side, 'accountNumber'))) {
    out.push({ path: `${sidePath}/accountNumber`, message: `the ${party}'s account number is ${because}` });
  }
  const personal = requirements.filter((r) => r !== 'accountNumber');
  if (personal.length === 0) return out;
  const persons = member(side, personsKey);
  if (!Array.isArray(persons) || persons.length === 0) {
    out.push({ path: `${sidePath}/${personsKey}`, message: `the ${party}'s identity is ${because}` });
    return out;
  }
  persons.forEach((person, i) => {
    const natural = member(person, 'naturalPerson');
    const kind = natural !== undefined ? 'naturalPerson' : 'legalPerson';
    const data = natural ?? member(person, 'legalPerson');
    const base = `${sidePath}/${personsKey}/${i}/${kind}`;
    const has = (item: Item) => holds(item, data, kind);
    for (const r of personal) {
      if (typeof r === 'string') {
        if (!has(r))
          out.push({ path: `${base}/${FIELD[r as keyof typeof FIELD]}`, message: `is ${because}` });
      } else if (!r.anyOf.some((alternative) => alternative.every(has))) {
        const options = r.anyOf.map((alt) =>
          alt.map((item) => FIELD[item as keyof typeof FIELD]).join(' and '),
        );
        out.push({ path: base, message: `needs ${options.join(', or ')}: ${because}` });
      }
    }
  });
  return out;
}

/** Whether a person's data holds an item (canonical 2020 spelling; see the IVMS101 validator). */
function holds(item: Item, data: unknown, kind: 'naturalPerson' | 'legalPerson'): boolean {
  switch (item) {
    case 'name': {
      const names = member(data, 'name');
      const key = kind === 'naturalPerson' ? 'primaryIdentifier' : 'legalPersonName';
      return (
        Array.isArray(names) &&
        names.some((n) => {
          const ids = member(n, 'nameIdentifier');
          return Array.isArray(ids) && ids.some((id) => hasText(member(id, key)));
        })
      );
    }
    case 'address': {
      const addresses = member(data, 'geographicAddress');
      return Array.isArray(addresses) && addresses.length > 0;
    }
    case 'nationalIdentification':
      return hasText(member(member(data, 'nationalIdentification'), 'nationalIdentifier'));
    case 'customerIdentification':
      return hasText(member(data, 'customerIdentification'));
    case 'dateAndPlaceOfBirth': {
      const birth = member(data, 'dateAndPlaceOfBirth');
      return (
        kind === 'naturalPerson' &&
        hasText(member(birth, 'dateOfBirth')) &&
        hasText(member(birth, 'placeOfBirth'))
      );
    }
    case 'accountNumber':
      return false;
  }
}

function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** A non-blank string, or an array holding one. */
function hasText(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasText);
  return typeof value === 'string' && value.trim() !== '';
}
