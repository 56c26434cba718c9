/** The members' counterparty directory, and the operator's view of an organization's delivery health. */
import type { Database } from '../db/database.js';
import { organizationDeliveryHealth } from '../deliveries/health.js';
import { OrganizationDeliveryHealth } from '../deliveries/schemas.js';
import { orgOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { type HubApp, problems } from '../http/types.js';
import { counterpartiesOf } from './counterparties.js';
import { CounterpartyList, IdParams } from './schemas.js';
import { findOrganization } from './store.js';

export function counterpartyDirectoryRoutes(app: HubApp, db: Database) {
  app.get(
    '/v1/counterparties',
    {
      schema: {
        tags: ['directory'],
        summary:
          'The other organizations with verified state (and who verified it), jurisdiction, LEI, and the caller’s messages to each by state',
        response: { 200: CounterpartyList, ...problems() },
      },
    },
    async (request) => ({ counterparties: await counterpartiesOf(db, orgOf(request)) }),
  );
}

export function adminOrganizationHealthRoutes(app: HubApp, db: Database) {
  app.get(
    '/v1/admin/organizations/:id/delivery-health',
    {
      schema: {
        tags: ['operator'],
        summary:
          'An organization’s delivery health: webhooks owed to it by state, its endpoint’s circuit and last error class',
        params: IdParams,
        response: { 200: OrganizationDeliveryHealth, ...problems(400, 403, 404) },
      },
    },
    async (request) => {
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('The organization');
      return organizationDeliveryHealth(db, org);
    },
  );
}
