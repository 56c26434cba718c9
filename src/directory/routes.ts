/** Directory routes: the participant view (/v1/organizations…) and the operator's (/v1/admin/…). */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { orgOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import {
  ApiKeyList,
  CreatedApiKey,
  CreatedOrganization,
  CreateOrganization,
  DirectoryQuery,
  IdParams,
  KeyIdParams,
  MyApiKeyList,
  Organization,
  OrganizationList,
  RotatedSecret,
  UpdateMyOrganization,
  UpdateOrganization,
} from './schemas.js';
import type { DirectoryService } from './service.js';

export function directoryRoutes(app: HubApp, directory: DirectoryService) {
  const tags = ['directory'];

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
      return { organizations: await directory.list(request.query) };
    },
  );

  app.get(
    '/v1/organizations/me',
    {
      schema: {
        tags,
        summary: 'The calling organization’s directory entry',
        response: { 200: Organization, ...problems() },
      },
    },
    (request) => directory.get(orgOf(request)),
  );

  app.patch(
    '/v1/organizations/me',
    {
      schema: {
        tags,
        summary: 'Update the calling organization’s name, travel endpoint or public key',
        body: UpdateMyOrganization,
        response: { 200: Organization, ...problems(400, 415) },
      },
    },
    (request) => {
      const id = orgOf(request);
      return directory.update(id, request.body, `org:${id}`);
    },
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
      const keys = await directory.listApiKeys(caller.organizationId);
      return {
        apiKeys: keys.map(({ organizationId: _, ...k }) => ({ ...k, current: k.keyId === caller.keyId })),
      };
    },
  );

  app.post(
    '/v1/organizations/me/api-keys',
    {
      schema: {
        tags,
        summary: 'Issue another API key for the calling organization (shown once)',
        response: { 201: CreatedApiKey, ...problems(409) },
      },
    },
    async (request, reply) => {
      const id = orgOf(request);
      reply.code(201);
      return directory.createApiKey(id, `org:${id}`);
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
      await directory.revokeOwnApiKey(caller.organizationId, request.params.keyId, caller.keyId);
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
      const id = orgOf(request);
      reply.code(201);
      return directory.rotateWebhookSecret(id, `org:${id}`);
    },
  );
}

/** The calling organization and the id of the key it called with. */
function callerOf(request: FastifyRequest): { organizationId: string; keyId: string } {
  const organizationId = orgOf(request);
  const keyId = request.auth?.kind === 'org' ? request.auth.keyId : '';
  return { organizationId, keyId };
}

export function adminDirectoryRoutes(app: HubApp, directory: DirectoryService) {
  const tags = ['operator'];

  app.get(
    '/v1/admin/organizations',
    {
      schema: {
        tags,
        summary: 'List organizations (operator)',
        querystring: DirectoryQuery,
        response: { 200: OrganizationList, ...problems(400, 403) },
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
      return directory.create(request.body, 'operator');
    },
  );

  app.get(
    '/v1/admin/organizations/:id',
    {
      schema: {
        tags,
        summary: 'One organization (operator)',
        params: IdParams,
        response: { 200: Organization, ...problems(400, 403, 404) },
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
        response: { 200: Organization, ...problems(400, 403, 404, 409, 415) },
      },
    },
    (request) => directory.update(request.params.id, request.body, 'operator'),
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
      apiKeys: (await directory.listApiKeys(request.params.id)).map(({ organizationId: _, ...k }) => k),
    }),
  );

  app.post(
    '/v1/admin/organizations/:id/api-keys',
    {
      schema: {
        tags,
        summary: 'Issue another API key for the organization (shown once)',
        params: IdParams,
        response: { 201: CreatedApiKey, ...problems(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return directory.createApiKey(request.params.id, 'operator');
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
      await directory.revokeApiKey(request.params.keyId, 'operator');
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
      return directory.rotateWebhookSecret(request.params.id, 'operator');
    },
  );
}
