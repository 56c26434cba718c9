/**
 * The rules as the API uses them (SPEC §15): finds both parties' jurisdictions in the directory
 * and runs the pure evaluator on a request. `validate` answers; `enforce` refuses an initiation
 * that misses required data with 422 RULES_NOT_MET.
 */
import type { OrganizationDetail } from '../directory/schemas.js';
import { AppError } from '../http/errors.js';
import type { InitiateRequest } from '../transactions/schemas.js';
import { type Evaluation, evaluate } from './evaluate.js';
import type { FxRates } from './fx.js';
import type { Money, RulesTable } from './table.js';

export interface RulesLookups {
  byId(id: string): Promise<OrganizationDetail | undefined>;
  byDid(did: string): Promise<OrganizationDetail | undefined>;
}

type Body = InitiateRequest & { transferValue?: Money };

export class RulesService {
  constructor(
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

  /** Throws 422 RULES_NOT_MET listing every missing item when the transfer misses required data. */
  async enforce(originatorId: string, body: Body): Promise<void> {
    const result = await this.evaluate(originatorId, body);
    if (result.valid) return;
    const names = [...new Set(result.rules.map((r) => r.entry))].join(' and ');
    throw new AppError(
      'RULES_NOT_MET',
      `The transfer misses ${result.missing.length} item${result.missing.length === 1 ? '' : 's'} of data the rules of ${names} require; see errors.`,
      result.missing,
    );
  }
}
