/** `GET /v1/admin/rekey`: where the serving hub's re-sealing stands (embedded database, SPEC §14). */
import { Type } from 'typebox';
import { type HubApp, problems } from '../http/types.js';
import type { BackgroundRekey } from './background.js';

const RekeyStatus = Type.Object({
  keyId: Type.String({ description: 'The current master key’s id: what everything is re-sealed under.' }),
  state: Type.Enum(['idle', 'running', 'done', 'stopped', 'failed'], {
    description:
      'idle: no previous key, or a hub on PostgreSQL (run `travel-rule-hub rekey` there); stopped: the hub ' +
      'stopped it between batches, the next start continues; failed: see error.',
  }),
  done: Type.Integer({ description: 'Values re-sealed so far by this process.' }),
  total: Type.Integer({ description: 'Values sealed under older keys when it began.' }),
  error: Type.Union([Type.String(), Type.Null()]),
});

export function rekeyRoutes(app: HubApp, job: BackgroundRekey) {
  app.get(
    '/v1/admin/rekey',
    {
      schema: {
        tags: ['operator'],
        summary: 'Progress of re-sealing under the current master key inside this hub (embedded database)',
        response: { 200: RekeyStatus, ...problems(403) },
      },
    },
    () => job.status(),
  );
}
