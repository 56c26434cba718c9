/** The operator's erasure of one transaction's personal data (SPEC §14). */
import { actorOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import { RefParams } from '../transactions/schemas.js';
import type { Erasure } from './erasure.js';
import { ErasePiiRequest, ErasePiiResponse } from './schemas.js';

export function adminRetentionRoutes(app: HubApp, erasure: Erasure) {
  app.post(
    '/v1/admin/transactions/:transactionRef/erase-pii',
    {
      schema: {
        tags: ['operator'],
        summary:
          'Erase a transaction’s personal data and sealed reasons now (audited); metadata and history stay. Repeating it changes nothing.',
        params: RefParams,
        body: ErasePiiRequest,
        response: { 200: ErasePiiResponse, ...problems(400, 404, 415) },
      },
    },
    (request) => erasure.eraseNow(request.params.transactionRef, actorOf(request), request.body.reason),
  );
}
