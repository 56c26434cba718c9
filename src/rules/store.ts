/** SQL of the rules domain: the rules each initiation was held to. */
import type { Queryable } from '../db/database.js';
import type { AppliedRule, Regime } from './evaluate.js';

export interface HeldTo {
  regime: Regime;
  rules: AppliedRule[];
}

/** The initiation statement's input columns for the rules it was held to (null: none applied). */
export const RULES_INPUT_COLUMNS = 'rules_regime text, rules jsonb';

/** SQL that keeps the rules of `source`'s rows that were held to some (a data-modifying CTE). */
export function insertRulesFrom(source: string): string {
  return `INSERT INTO transaction_rules (transaction_ref, regime, rules)
       SELECT ref, rules_regime, rules FROM ${source} WHERE rules_regime IS NOT NULL`;
}

export async function rulesOf(q: Queryable, ref: string): Promise<HeldTo | undefined> {
  const rows = await q.query<{ regime: Regime; rules: unknown }>(
    'SELECT regime, rules FROM transaction_rules WHERE transaction_ref = $1',
    [ref],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    regime: r.regime,
    rules: (typeof r.rules === 'string' ? JSON.parse(r.rules) : r.rules) as AppliedRule[],
  };
}
