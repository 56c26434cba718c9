/** Operator routes for named operators (operator keys only). */
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import { CreatedOperator, CreateOperator, OperatorList, OperatorParams } from './schemas.js';
import type { OperatorService } from './service.js';

export function operatorRoutes(app: HubApp, operators: OperatorService) {
  const tags = ['operator'];

  app.get(
    '/v1/admin/operators',
    {
      schema: {
        tags,
        summary: 'Named operators, active and revoked',
        response: { 200: OperatorList, ...problems() },
      },
    },
    async (request) => {
      const auth = request.auth;
      const me = auth?.kind === 'operator' ? auth.operatorId : null;
      return { operators: (await operators.list()).map((o) => ({ ...o, current: o.id === me })) };
    },
  );

  app.post(
    '/v1/admin/operators',
    {
      schema: {
        tags,
        summary: 'Create a named operator; returns its key once',
        body: CreateOperator,
        response: { 201: CreatedOperator, ...problems(400, 409, 415) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return operators.create(request.body.name, actorOf(request));
    },
  );

  app.delete(
    '/v1/admin/operators/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a named operator’s key (not the one making the request)',
        params: OperatorParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...problems(400, 404, 409) },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      await operators.revoke(
        request.params.id,
        actorOf(request),
        auth?.kind === 'operator' ? auth.operatorId : null,
      );
      return reply.code(204).send(null);
    },
  );
}
