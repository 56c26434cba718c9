/**
 * Roles and what they may do (SPEC §17), as data: the one table the API enforces and the docs
 * derive from (docs/security.md; a test keeps the two in step).
 *
 * A route needs one of these permissions:
 * - `read`: reads without personal data (every GET, unless listed below);
 * - `pii`: personal data (the `/pii` read, CSV exports with it);
 * - `act`: transaction actions and other changes (every unsafe method, unless listed below);
 * - `admin`: settings, API keys, users, the webhook secret;
 * - `self`: the signed-in person's own account (a session only, whatever the role; open even to a
 *   user who still has to enrol a second factor).
 * API keys keep their scopes (SPEC §13): `full` may do everything but `self`, `read` every GET.
 */
export const ORG_ROLES = ['viewer', 'analyst', 'admin'] as const;
export const OPERATOR_ROLES = ['viewer', 'admin'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export type Role = OrgRole;

export type Permission = 'read' | 'pii' | 'act' | 'admin';
export type Need = Permission | 'self';

/** What each role may do: organization users, and operator users on /v1/admin. */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  analyst: ['read', 'pii', 'act'],
  admin: ['read', 'pii', 'act', 'admin'],
};

/** Routes whose need is not their method's default (`read` for GET and HEAD, else `act`). */
export const ROUTE_NEEDS: Record<string, Need> = {
  'GET /v1/transactions/:transactionRef/pii': 'pii',
  // A review is a transaction action; its note text is shown only to `pii` (src/reviews/routes.ts).
  'POST /v1/transactions/:transactionRef/review': 'act',
  'PATCH /v1/organizations/me': 'admin',
  'GET /v1/organizations/me/api-keys': 'admin',
  'POST /v1/organizations/me/api-keys': 'admin',
  'DELETE /v1/organizations/me/api-keys/:keyId': 'admin',
  'POST /v1/organizations/me/webhook-secret': 'admin',
  'POST /v1/organizations/me/test-event': 'admin',
  'POST /v1/travel-addresses': 'admin',
  'DELETE /v1/travel-addresses/:id': 'admin',
  'GET /v1/organizations/me/oidc': 'admin',
  'PUT /v1/organizations/me/oidc': 'admin',
  'DELETE /v1/organizations/me/oidc': 'admin',
  'GET /v1/users': 'admin',
  'POST /v1/users/invitations': 'admin',
  'PATCH /v1/users/:id': 'admin',
  'DELETE /v1/users/:id': 'admin',
  'DELETE /v1/users/invitations/:id': 'admin',
  'GET /v1/users/policy': 'admin',
  'PUT /v1/users/policy': 'admin',
  'GET /v1/users/me': 'self',
  'POST /v1/users/me/totp': 'self',
  'POST /v1/users/me/totp/confirm': 'self',
  'GET /v1/users/me/sessions': 'self',
  'DELETE /v1/users/me/sessions/:id': 'self',
  'POST /v1/users/me/password': 'self',
  'GET /v1/sessions/current': 'self',
  'DELETE /v1/sessions/current': 'self',
  'GET /v1/admin/users': 'admin',
  'POST /v1/admin/users/invitations': 'admin',
  'PATCH /v1/admin/users/:id': 'admin',
  'DELETE /v1/admin/users/:id': 'admin',
  'DELETE /v1/admin/users/invitations/:id': 'admin',
};

const READS = new Set(['GET', 'HEAD']);

/** What a route needs, by its method and path pattern (admin routes: reads `read`, the rest `admin`). */
export function needOf(method: string, route: string): Need {
  // HEAD runs the GET route's handler (Fastify adds it for every GET), so it needs what GET needs.
  const listed = ROUTE_NEEDS[`${method === 'HEAD' ? 'GET' : method} ${route}`];
  if (listed) return listed;
  if (READS.has(method)) return 'read';
  return route.startsWith('/v1/admin/') ? 'admin' : 'act';
}

export function roleMay(role: Role, need: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(need);
}
