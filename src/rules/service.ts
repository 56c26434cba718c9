/**
 * The rules as the API uses them (SPEC §15): finds both parties' jurisdictions in the directory
 * and runs the pure evaluator on a request. `validate` answers; `enforce` refuses an initiation
 * that misses required data with 422 RULES_NOT_MET.
 */

import type { Queryable } from '../db/database.js';
import type { OrganizationDetail } from '../directory/schemas.js';
import { AppError } from '../http/errors.js';
import type { InitiateRequest } from '../transactions/schemas.js';
import { type Evaluation, evaluate } from './evaluate.js';
import type { FxRates } from './fx.js';
import { type HeldTo, rulesOf } from './store.js';
import type { Money, RulesTable } from './table.js';

export interface RulesLookups {
  byId(id: string): Promise<OrganizationDetail | undefined>;
  byDid(did: string): Promise<OrganizationDetail | undefined>;
}

type Body = InitiateRequest & { transferValue?: Money };

export class RulesService {
  constructor(
    private readonly db: Queryable,
    readonly table: RulesTable,
    readonly fx: FxRates,
    readonly fxConfigured: boolean,
    private readonly lookups: RulesLookups,
  ) {}

  async evaluate(originatorId: string, body: Body): Promise<Evaluation> {
    const originator = await this.lookups.byId(originatorId);
    const beneficiary =
      body.protocol === 'TRP'
        ? undefined
        : body.beneficiaryVASPdid !== undefined
          ? await this.lookups.byDid(body.beneficiaryVASPdid)
          : body.beneficiaryVASPid !== undefined
            ? await this.lookups.byId(body.beneficiaryVASPid)
            : undefined;
    return evaluate(this.table, this.fx, {
      originatorJurisdiction: originator?.jurisdiction ?? null,
      beneficiaryJurisdiction: beneficiary?.jurisdiction ?? null,
      ...(body.transferValue === undefined ? {} : { transferValue: body.transferValue }),
      pii: body.pii,
    });
  }

  /**
   * Throws 422 RULES_NOT_MET listing every missing item when the transfer misses required data;
   * else the rules it is held to (undefined when none apply).
   */
  async enforce(originatorId: string, body: Body): Promise<HeldTo | undefined> {
    const result = await this.evaluate(originatorId, body);
    if (result.valid)
      return result.rules.length === 0 ? undefined : { regime: result.regime, rules: result.rules };
    const names = [...new Set(result.rules.map((r) => r.entry))].join(' and ');
    throw new AppError(
      'RULES_NOT_MET',
      `The transfer misses ${result.missing.length} item${result.missing.length === 1 ? '' : 's'} of data the rules of ${names} require; see errors.`,
      result.missing,
    );
  }

  ofTransaction(ref: string): Promise<HeldTo | undefined> {
    return rulesOf(this.db, ref);
  }
}
