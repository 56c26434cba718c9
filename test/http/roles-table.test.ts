/**
 * The roles table (src/people/roles.ts) names real routes: every entry is a method and path the
 * hub serves (by its own OpenAPI document), so a renamed route cannot silently fall back to its
 * method's default need.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { needOf, ROUTE_NEEDS, roleMay } from '../../src/people/roles.js';
import { startHub, type TestHub } from '../harness.js';

describe('the roles table', () => {
  let hub: TestHub;
  before(async () => {
    hub = await startHub('pglite', { HUB_WORKER: 'false' });
  });
  after(async () => {
    await hub?.destroy();
  });

  it('lists only routes the hub serves', async () => {
    const doc = await hub.request('GET', '/openapi.json', { key: null });
    assert.equal(doc.status, 200);
    const served = new Set<string>();
    for (const [path, ops] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) {
        served.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    assert.ok(served.size > 50, 'the document lists the routes');
    const unknown = Object.keys(ROUTE_NEEDS).filter((route) => !served.has(route));
    assert.deepEqual(unknown, []);
  });

  it('lets analysts and admins change a review, and every role read the queue and the assignees', () => {
    const review = needOf('POST', '/v1/transactions/:transactionRef/review');
    assert.equal(review, 'act');
    assert.deepEqual(
      (['viewer', 'analyst', 'admin'] as const).filter((r) => roleMay(r, review)),
      ['analyst', 'admin'],
    );
    for (const route of ['/v1/queue', '/v1/reviews/assignees']) assert.equal(needOf('GET', route), 'read');
    assert.equal(needOf('GET', '/v1/admin/queue'), 'read');
  });
});
