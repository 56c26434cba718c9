/** Rules routes (SPEC §15): the validate dry run and the rules table. */
import { orgOf } from '../http/auth.js';
import { validationFailed } from '../http/errors.js';
import { fieldProblems } from '../http/problem.js';
import { type HubApp, problems } from '../http/types.js';
import type { AssetTable } from '../transactions/assets.js';
import { InitiateRequest, RefParams } from '../transactions/schemas.js';
import type { TransactionService } from '../transactions/service.js';
import { validateInitiation } from '../transactions/validation.js';
import { RulesTableResponse, TransactionRules, ValidateResponse } from './schemas.js';
import type { RulesService } from './service.js';

export function rulesRoutes(
  app: HubApp,
  rules: RulesService,
  assets: AssetTable,
  transactions: TransactionService,
) {
  app.post(
    '/v1/transactions/validate',
    {
      attachValidation: true,
      config: { readOnly: true },
      schema: {
        tags: ['transactions'],
        summary: 'Dry run of an initiation: which jurisdictions’ rules apply and what data is missing',
        description:
          'Takes initiate’s body and checks it as initiate does (400 for what initiate refuses with 400), then ' +
          'evaluates the rules of both parties’ jurisdictions. Stores nothing and sends nothing, so keys of the read scope may call it.',
        body: InitiateRequest,
        response: { 200: ValidateResponse, ...problems(400, 415) },
      },
    },
    async (request) => {
      const orgId = orgOf(request);
      const schemaProblems = request.validationError ? fieldProblems(request.validationError) : [];
      const checked = validateInitiation(request.body, assets, schemaProblems);
      if (checked.problems.length > 0) throw validationFailed(checked.problems);
      // The rules read the canonical form (SPEC §18), whatever dialect the sender used.
      return rules.evaluate(orgId, { ...request.body, pii: checked.pii });
    },
  );

  const table = () => ({
    rules: [...rules.table.entries.values()],
    fxRates: rules.fxConfigured ? { base: rules.fx.base, date: rules.fx.date } : null,
  });
  app.get(
    '/v1/rules',
    {
      schema: {
        tags: ['transactions'],
        summary: 'The jurisdiction rules table this hub applies, with each entry’s legal source',
        response: { 200: RulesTableResponse, ...problems() },
      },
    },
    async (request) => {
      orgOf(request);
      return table();
    },
  );
  app.get(
    '/v1/admin/rules',
    {
      schema: {
        tags: ['operator'],
        summary: 'The jurisdiction rules table (operator)',
        response: { 200: RulesTableResponse, ...problems() },
      },
    },
    async () => table(),
  );

  app.get(
    '/v1/transactions/:transactionRef/rules',
    {
      schema: {
        tags: ['transactions'],
        summary:
          'The jurisdiction rules a transaction was held to at initiation, with their sources (either party)',
        params: RefParams,
        response: { 200: TransactionRules, ...problems(400, 404) },
      },
    },
    async (request) => {
      // 404 for anyone but the two parties, as for the transaction itself.
      await transactions.get(orgOf(request), request.params.transactionRef);
      const held = await rules.ofTransaction(request.params.transactionRef);
      return held ?? { regime: null, rules: [] };
    },
  );
}
