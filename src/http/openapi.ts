/**
 * The OpenAPI 3.1 document (`/openapi.json`), generated from the route schemas that validate
 * requests, plus what routes cannot say: the webhooks the hub sends (webhook-docs.ts) and named
 * schemas that a route's validator deliberately leaves loose (documented-as.ts).
 */
import swagger from '@fastify/swagger';
import { DOCUMENTED_AS, OPTIONAL_BODY } from './documented-as.js';
import type { HubApp } from './types.js';

export interface DocumentParts {
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  webhooks: Record<string, unknown>;
  /** Named schemas: referenced by DOCUMENTED_AS fields and by the webhooks. */
  schemas: Record<string, unknown>;
}

export async function registerOpenApi(app: HubApp, parts: DocumentParts): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: parts.info,
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
      tags: parts.tags,
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (doc) => {
      const openapi = ('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as Record<string, any>;
      const components = {
        ...openapi.components,
        schemas: { ...openapi.components?.schemas, ...parts.schemas },
      };
      return typedEnums(referenced({ ...openapi, components, webhooks: parts.webhooks })) as never;
    },
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () =>
    app.swagger(),
  );
}

/**
 * A copy in which every DOCUMENTED_AS field is a reference to its component, and every request
 * body marked OPTIONAL_BODY is not required.
 */
function referenced(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(referenced);
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, any>;
  const name = object[DOCUMENTED_AS];
  if (typeof name === 'string') return { $ref: `#/components/schemas/${name}` };
  const copy = Object.fromEntries(
    Object.entries(object)
      .filter(([k]) => k !== OPTIONAL_BODY)
      .map(([k, v]) => [k, referenced(v)]),
  );
  if (object.content?.['application/json']?.schema?.[OPTIONAL_BODY]) copy.required = false;
  return copy;
}

/**
 * A copy in which every enum of strings also says `type: string`, as client generators expect of
 * a string enum. The route schemas leave the type out, so that a value of another type gets the
 * one "must be one of …" problem rather than a second "must be string"; they are not touched here.
 */
function typedEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typedEnums);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = typedEnums(value);
  const values = copy.enum;
  if (copy.type === undefined && Array.isArray(values) && values.every((v) => typeof v === 'string')) {
    copy.type = 'string';
  }
  return copy;
}
