import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { dashboardRoutes } from '../../src/dashboard/routes.js';
import { registerProblemHandlers } from '../../src/http/problem.js';
import type { HubApp } from '../../src/http/types.js';
import { startHub, type TestHub } from '../harness.js';
import { ensureDashboardBuilt } from '../ui/browser.js';

describe('dashboard hosting', () => {
  let hub: TestHub;
  before(async () => {
    ensureDashboardBuilt();
    hub = await startHub('pglite', { HUB_WORKER: 'false' });
  });
  after(() => hub?.destroy());

  it('redirects /ui to /ui/ and serves the page under a strict Content-Security-Policy', async () => {
    const redirect = await fetch(`${hub.url}/ui`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), '/ui/');
    const page = await fetch(`${hub.url}/ui/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.ok(!csp.includes('unsafe'), csp);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const html = await page.text();
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(html), 'no inline script');
    assert.ok(!/https?:\/\//.test(html.replace(/http:\/\/www\.w3\.org[^"]*/g, '')), 'nothing from elsewhere');
    const asset = html.match(/src="(\/ui\/assets\/[^"]+)"/)?.[1];
    assert.ok(asset, html);
    const js = await fetch(`${hub.url}${asset}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
  });

  it('answers unknown files under /ui with a problem', async () => {
    const res = await hub.request('GET', '/ui/assets/nope.js');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
  });

  it('gives /docs its own policy and leaves API answers without the page’s headers', async () => {
    const docs = await fetch(`${hub.url}/docs/static/index.html`);
    const csp = docs.headers.get('content-security-policy') ?? '';
    assert.match(csp, /style-src 'self' 'unsafe-inline'/);
    assert.match(csp, /script-src 'self';/);
    const api = await fetch(`${hub.url}/healthz`);
    assert.equal(api.headers.get('content-security-policy'), null);
  });

  it('serves only the swagger-ui files the docs page loads, not the rest of the package', async () => {
    for (const file of [
      'index.html',
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
    ]) {
      assert.equal((await fetch(`${hub.url}/docs/static/${file}`)).status, 200, file);
    }
    for (const file of [
      'package.json',
      'README.md',
      'swagger-ui-bundle.js.map',
      'absolute-path.js',
      'index.js',
    ]) {
      assert.equal((await fetch(`${hub.url}/docs/static/${file}`)).status, 404, file);
    }
  });

  it('tells browsers not to sniff content types, on API answers, errors and pages alike', async () => {
    for (const path of ['/healthz', '/v1/transactions', '/nope', '/docs/static/index.html', '/ui/']) {
      const res = await fetch(`${hub.url}${path}`);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    }
  });

  it('says plainly when the page has not been built', async () => {
    const app = Fastify() as unknown as HubApp;
    registerProblemHandlers(app);
    await dashboardRoutes(app, '/nonexistent/ui-dist/');
    const res = await app.inject({ method: 'GET', url: '/ui/' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().code, 'UNAVAILABLE');
    assert.match(res.json().detail, /npm run build/);
    await app.close();
  });
});
