/** Directory routes: the participant view (/v1/organizations…) and the operator's (/v1/admin/…). */
import { Type } from 'typebox';
import { actorOf, callerOf, orgOf, userOf } from '../http/auth.js';
import { optionalBody } from '../http/problem.js';
import { type HubApp, problems } from '../http/types.js';
import {
  ApiKeyList,
  CreateApiKey,
  CreatedApiKey,
  CreatedOrganization,
  CreateOrganization,
  DirectoryQuery,
  IdParams,
  KeyIdParams,
  MyApiKeyList,
  OrganizationDetail,
  OrganizationDetailList,
  OrganizationList,
  RotatedSecret,
  UpdateMyOrganization,
  UpdateOrganization,
} from './schemas.js';
import type { DirectoryService } from './service.js';
import { publicEntry } from './store.js';

export function directoryRoutes(app: HubApp, directory: DirectoryService) {
  const tags = ['directory'];
  const keys = directory.credentials;

  app.get(
    '/v1/organizations',
    {
      schema: {
        tags,
        summary: 'List the organizations in the directory',
        querystring: DirectoryQuery,
        response: { 200: OrganizationList, ...problems(400) },
      },
    },
    async (request) => {
      orgOf(request);
      return { organizations: (await directory.list(request.query)).map(publicEntry) };
    },
  );

  app.get(
    '/v1/organizations/me',
    {
      schema: {
        tags,
        summary: 'The calling organization’s directory entry, with its contact address',
        response: { 200: OrganizationDetail, ...problems() },
      },
    },
    (request) => directory.get(orgOf(request)),
  );

  app.patch(
    '/v1/organizations/me',
    {
      schema: {
        tags,
        summary: 'Update the calling organization’s name, travel endpoint, public key or contact address',
        description:
          'A change of travelEndpoint or publicKey is audited with the old and new value and e-mailed to ' +
          'contactEmail. A new name makes a verified organization unverified until the operator verifies it again.',
        body: UpdateMyOrganization,
        response: { 200: OrganizationDetail, ...problems(400, 415) },
      },
    },
    (request) => directory.update(orgOf(request), request.body, actorOf(request), { self: true }),
  );

  app.get(
    '/v1/organizations/me/api-keys',
    {
      schema: {
        tags,
        summary: 'The calling organization’s API keys (prefixes only; `current` marks the calling key)',
        response: { 200: MyApiKeyList, ...problems() },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const list = await keys.listApiKeys(caller.organizationId);
      return {
        apiKeys: list.map(({ organizationId: _, ...k }) => ({ ...k, current: k.keyId === caller.keyId })),
      };
    },
  );

  app.post(
    '/v1/organizations/me/api-keys',
    {
      schema: {
        tags,
        summary: 'Issue another API key for the calling organization (shown once)',
        body: CreateApiKey,
        response: { 201: CreatedApiKey, ...problems(400, 409, 415) },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      const id = orgOf(request);
      const body = optionalBody(request);
      reply.code(201);
      return keys.createApiKey(id, actorOf(request), body?.scope, {
        label: body?.label,
        ownerUserId: body?.owner === undefined ? userOf(request)?.userId : body.owner,
      });
    },
  );

  app.delete(
    '/v1/organizations/me/api-keys/:keyId',
    {
      schema: {
        tags,
        summary: 'Revoke one of the calling organization’s keys (not the one making the request)',
        description:
          'A key of another organization is 404. The key making the request cannot revoke itself ' +
          '(409 INVALID_STATE), so an organization always keeps a working key.',
        params: KeyIdParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...problems(400, 404, 409) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      await keys.revokeOwnApiKey(caller.organizationId, request.params.keyId, caller.keyId, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/organizations/me/webhook-secret',
    {
      schema: {
        tags,
        summary:
          'Rotate the calling organization’s webhook secret (shown once; the previous one signs for 24 h)',
        response: { 201: RotatedSecret, ...problems() },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return keys.rotateWebhookSecret(orgOf(request), actorOf(request));
    },
  );
}

export function adminDirectoryRoutes(app: HubApp, directory: DirectoryService) {
  const tags = ['operator'];
  const keys = directory.credentials;

  app.get(
    '/v1/admin/organizations',
    {
      schema: {
        tags,
        summary: 'List organizations (operator)',
        querystring: DirectoryQuery,
        response: { 200: OrganizationDetailList, ...problems(400, 403) },
      },
    },
    async (request) => ({ organizations: await directory.list(request.query) }),
  );

  app.post(
    '/v1/admin/organizations',
    {
      schema: {
        tags,
        summary: 'Register an organization; returns its first API key and webhook secret once',
        body: CreateOrganization,
        response: { 201: CreatedOrganization, ...problems(400, 403, 409, 415) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return directory.create(request.body, actorOf(request));
    },
  );

  app.get(
    '/v1/admin/organizations/:id',
    {
      schema: {
        tags,
        summary: 'One organization (operator)',
        params: IdParams,
        response: { 200: OrganizationDetail, ...problems(400, 403, 404) },
      },
    },
    (request) => directory.get(request.params.id),
  );

  app.patch(
    '/v1/admin/organizations/:id',
    {
      schema: {
        tags,
        summary: 'Update any directory field, e.g. organizationType: "verified"',
        params: IdParams,
        body: UpdateOrganization,
        response: { 200: OrganizationDetail, ...problems(400, 403, 404, 409, 415) },
      },
    },
    (request) => directory.update(request.params.id, request.body, actorOf(request)),
  );

  app.get(
    '/v1/admin/organizations/:id/api-keys',
    {
      schema: {
        tags,
        summary: 'The organization’s API keys (prefixes only)',
        params: IdParams,
        response: { 200: ApiKeyList, ...problems(400, 403, 404) },
      },
    },
    async (request) => ({
      apiKeys: (await keys.listApiKeys(request.params.id)).map(({ organizationId: _, ...k }) => k),
    }),
  );

  app.post(
    '/v1/admin/organizations/:id/api-keys',
    {
      schema: {
        tags,
        summary: 'Issue another API key for the organization (shown once)',
        params: IdParams,
        body: CreateApiKey,
        response: { 201: CreatedApiKey, ...problems(400, 403, 404, 409, 415) },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      const body = optionalBody(request);
      reply.code(201);
      return keys.createApiKey(request.params.id, actorOf(request), body?.scope, {
        label: body?.label,
        ownerUserId: body?.owner,
      });
    },
  );

  app.delete(
    '/v1/admin/api-keys/:keyId',
    {
      schema: {
        tags,
        summary: 'Revoke an API key',
        params: KeyIdParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...problems(400, 403, 404) },
      },
    },
    async (request, reply) => {
      await keys.revokeApiKey(request.params.keyId, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/organizations/:id/webhook-secret',
    {
      schema: {
        tags,
        summary: 'Rotate the webhook signing secret (the previous one still signs for 24 h)',
        params: IdParams,
        response: { 201: RotatedSecret, ...problems(400, 403, 404) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return keys.rotateWebhookSecret(request.params.id, actorOf(request));
    },
  );
}
