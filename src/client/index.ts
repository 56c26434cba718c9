/**
 * A typed client for the hub's /v1 API, generated from the hub's own OpenAPI document
 * (schema.ts) and driven by openapi-fetch. Every path, body and answer is typed; a non-2xx
 * answer is thrown as a HubProblem carrying the RFC 9457 body.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths, webhooks } from './schema.js';

export type { components, paths, webhooks } from './schema.js';

/** The body of a webhook the hub sends, by event: `WebhookBody<'received'>`. */
export type WebhookBody<E extends keyof webhooks> =
  operations[`webhook-${E}`]['requestBody']['content']['application/json'];
export type Problem = components['schemas']['Problem'];
/**
 * The media types the client's answers are typed by: JSON and problem+json. An export (`format=csv`
 * or `jsonl`) is read with `parseAs: 'blob'` or `'text'` and typed as such.
 */
type Json = `${string}/${string}json`;
export type HubClient = Client<paths, Json>;

export interface HubClientOptions {
  /** The hub's base URL, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** An organization API key, or the operator key for /v1/admin routes. */
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

export function createHubClient(options: HubClientOptions): HubClient {
  const client = createClient<paths, Json>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.fetch,
  });
  client.use({
    onRequest({ request }) {
      request.headers.set('x-api-key', options.apiKey);
      return request;
    },
  });
  return client;
}

/** A problem+json answer from the hub. `problem.code` is the stable thing to branch on. */
export class HubProblem extends Error {
  override name = 'HubProblem';
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.code}: ${problem.detail}`);
  }
}

/**
 * Awaits an openapi-fetch call and returns its data, or throws HubProblem.
 * `const tx = await unwrap(hub.GET('/v1/transactions/{transactionRef}', { params: … }))`
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const problem = isProblem(error)
    ? error
    : ({
        type: 'about:blank',
        title: response.statusText,
        status: response.status,
        detail: `HTTP ${response.status}`,
        code: 'INTERNAL',
      } as Problem);
  throw new HubProblem(response.status, problem);
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && typeof (value as Problem).code === 'string';
}
