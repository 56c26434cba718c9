/** SQL of the rules domain: the rules each initiation was held to. */
import type { Queryable } from '../db/database.js';
import type { AppliedRule, Regime } from './evaluate.js';

export interface HeldTo {
  regime: Regime;
  rules: AppliedRule[];
}

export async function recordRules(q: Queryable, ref: string, held: HeldTo): Promise<void> {
  await q.query(
    `INSERT INTO transaction_rules (transaction_ref, regime, rules) VALUES ($1, $2, $3::jsonb)
     ON CONFLICT (transaction_ref) DO NOTHING`,
    [ref, held.regime, JSON.stringify(held.rules)],
  );
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
