/** Operator routes about the hub as a whole. */
import type { Database } from '../db/database.js';
import { type HubApp, problems } from '../http/types.js';
import { HubStats } from './schemas.js';
import { hubStats } from './store.js';

export function adminOperationsRoutes(app: HubApp, db: Database) {
  app.get(
    '/v1/admin/stats',
    {
      schema: {
        tags: ['operator'],
        summary: 'Hub-wide counters: transactions by status, delivery queue depth and age, organizations',
        response: { 200: HubStats, ...problems(403) },
      },
    },
    () => hubStats(db),
  );
}
