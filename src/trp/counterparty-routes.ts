/** The operator API of TRP counterparties (operator keys only, as every /v1/admin route). */
import { actorOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import type { TrpCounterparties } from './counterparties.js';
import {
  AddCounterparty,
  Counterparty,
  CounterpartyList,
  CounterpartyParams,
  UpdateCounterparty,
} from './counterparty-schemas.js';

export function counterpartyRoutes(app: HubApp, counterparties: TrpCounterparties) {
  const tags = ['trp'];
  app.get(
    '/v1/admin/trp/counterparties',
    {
      schema: {
        tags,
        summary: 'The TRP peers the hub has talked to or the operator added, by host',
        response: { 200: CounterpartyList, ...problems() },
      },
    },
    () => counterparties.list(),
  );
  app.post(
    '/v1/admin/trp/counterparties',
    {
      schema: {
        tags,
        summary: 'Add a TRP peer: pin its certificate to its host, block it, or set its version or amounts',
        body: AddCounterparty,
        response: { 201: Counterparty, ...problems(400, 409, 415) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return counterparties.add(request.body, actorOf(request));
    },
  );
  app.patch(
    '/v1/admin/trp/counterparties/:id',
    {
      schema: {
        tags,
        summary: 'Pin or unpin a TRP peer’s certificate, block or unblock it, set its version or amounts',
        params: CounterpartyParams,
        body: UpdateCounterparty,
        response: { 200: Counterparty, ...problems(400, 404, 415) },
      },
    },
    (request) => counterparties.update(request.params.id, request.body, actorOf(request)),
  );
}
