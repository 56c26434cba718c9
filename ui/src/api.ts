/**
 * The dashboard's only way to the hub: the typed client generated from the hub's OpenAPI
 * document (src/client), on this origin. A person's session is the hub's HttpOnly cookie, which
 * the browser sends by itself to this origin; the session's CSRF token stays in this page's
 * memory (never in storage: a new tab asks the hub for it again with the cookie) and travels only
 * in the x-csrf-token header of unsafe requests. An API key (the first admin, automation) lives in
 * session storage (this tab only, gone when it closes or on sign-out) and travels only in the
 * x-api-key header.
 * The pages that e-mailed links open (claim, credentials) use the same typed paths without a
 * key (`publicClient`), or with a key typed in for one request and never stored.
 */
import createClient from 'openapi-fetch';
import {
  type components,
  createHubClient,
  type HubClient,
  HubProblem,
  type paths,
  unwrap,
} from '../../src/client/index.js';

export type Schemas = components['schemas'];
export type { HubClient };
export { HubProblem, unwrap };

const STORAGE_KEY = 'trh.dashboard.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

export function clientFor(apiKey: string): HubClient {
  return createHubClient({ baseUrl: window.location.origin, apiKey });
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** A signed-in person's client: the cookie goes by itself (same origin), the CSRF token with unsafe methods. */
export function sessionClient(csrfToken: string): HubClient {
  const client = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
  client.use({
    onRequest({ request }) {
      if (!SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
      return request;
    },
  });
  return client;
}

/** For the public routes (a link's token is their credential): no x-api-key header at all. */
export function publicClient(): HubClient {
  return createClient<paths>({ baseUrl: window.location.origin });
}

/** A readable sentence for any failure: the hub's problem detail, or what went wrong on the way. */
export function describeError(err: unknown): string {
  if (err instanceof HubProblem) {
    const fields = err.problem.errors?.map((e) => `${e.path || 'body'}: ${e.message}`) ?? [];
    return [err.problem.detail, ...fields].join(' ');
  }
  if (err instanceof TypeError) return 'The hub did not answer. Check the connection and try again.';
  return err instanceof Error ? err.message : String(err);
}

/** Field problems of a 400 answer by field name (`/publicKey` → `publicKey`). */
export function fieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof HubProblem)) return {};
  const out: Record<string, string> = {};
  for (const e of err.problem.errors ?? []) {
    const field = e.path.split('/')[1];
    if (field && !out[field]) out[field] = e.message;
  }
  return out;
}

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Ok<Op> = Op extends { responses: infer R } ? Json<R[200 & keyof R]> | Json<R[201 & keyof R]> : never;
type GetOf<P extends keyof paths> = paths[P] extends { get: infer Op } ? Ok<Op> : never;
type PostOf<P extends keyof paths> = paths[P] extends { post: infer Op } ? Ok<Op> : never;

export type Organization = GetOf<'/v1/organizations/me'>;
export type TransactionSummary = GetOf<'/v1/transactions'>['transactions'][number];
export type Transaction = GetOf<'/v1/transactions/{transactionRef}'>;
export type TransactionStatus = Transaction['status'];
/** Whether the message that tells the counterparty got through (SPEC §17), as the caller may see it. */
export type DeliverySummary = Transaction['delivery'];
export type Delivery = GetOf<'/v1/webhooks/deliveries'>['deliveries'][number];
export type Email = GetOf<'/v1/admin/emails'>['emails'][number];
export type HubStats = GetOf<'/v1/admin/stats'>;
export type MyApiKey = GetOf<'/v1/organizations/me/api-keys'>['apiKeys'][number];
export type ApiKeyInfo = GetOf<'/v1/admin/organizations/{id}/api-keys'>['apiKeys'][number];
/** `full`: everything the organization may do; `read`: GET requests only. */
export type KeyScope = ApiKeyInfo['scope'];
export type Operator = GetOf<'/v1/admin/operators'>['operators'][number];
export type CreatedOperator = PostOf<'/v1/admin/operators'>;
export type TestEventResult = PostOf<'/v1/organizations/me/test-event'>;
export type CreatedOrganization = PostOf<'/v1/admin/organizations'>;
export type RotatedSecret = PostOf<'/v1/organizations/me/webhook-secret'>;
export type Application = GetOf<'/v1/admin/applications'>['applications'][number];
export type Announcement = GetOf<'/v1/claims/{token}'>;
export type ApplicationAccepted = PostOf<'/v1/claims/{token}/application'>;
export type AttachResult = PostOf<'/v1/claims/{token}/attach'>;
export type Credentials = PostOf<'/v1/credentials/{token}'>;
/** One row of the audit trail (SPEC §14), as both readers answer it. */
export type AuditEvent = GetOf<'/v1/audit'>['events'][number];
/** The hub's most recent walk of the audit chain, with its time. */
export type ChainStatus = GetOf<'/v1/audit/status'>;
/** The operator's walk of the audit chain now. */
export type VerifyResult = GetOf<'/v1/admin/audit/verify'>;
/** A member's travel address for TRP inquiries (SPEC §16). */
export type TravelAddress = PostOf<'/v1/travel-addresses'>;

/** A signed-in person (SPEC §17), and what signing in (or a new tab) learns of the session. */
export type Person = GetOf<'/v1/sessions/current'>['user'];
export type CurrentSession = GetOf<'/v1/sessions/current'>;
export type PersonRole = Person['role'];
export type TeamList = GetOf<'/v1/users'>;
export type TeamInvitation = TeamList['invitations'][number];
export type TotpEnrolment = PostOf<'/v1/users/me/totp'>;
export type OwnSession = GetOf<'/v1/users/me/sessions'>['sessions'][number];
export type SsoSettings = GetOf<'/v1/organizations/me/oidc'>;

/** The caller's side of a transaction. */
export type Role = 'originator' | 'beneficiary';
export type ReviewAssignee = GetOf<'/v1/reviews/assignees'>['assignees'][number];
