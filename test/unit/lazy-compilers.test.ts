import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { lazyCompilers } from '../../src/http/lazy-compilers.js';

const Body = {
  type: 'object',
  required: ['n'],
  properties: { n: { type: 'integer' }, s: { type: 'string' } },
} as const;

function appWithCounter() {
  const counter = { ajvInstances: 0 };
  const app = Fastify({
    ajv: {
      customOptions: { allErrors: true, coerceTypes: false },
      plugins: [
        (ajv) => {
          counter.ajvInstances++;
          return ajv;
        },
      ],
    },
    schemaController: { compilersFactory: lazyCompilers() },
  });
  app.post(
    '/echo',
    { schema: { body: Body, response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } } },
    async (req) => ({ ...(req.body as object), extra: 'not in the response schema' }),
  );
  app.get(
    '/other',
    { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } } },
    async () => ({}),
  );
  return { app, counter };
}

describe('lazy schema compilers', () => {
  it('compile nothing at ready, then validate on first use as the default compilers would', async () => {
    const { app, counter } = appWithCounter();
    await app.ready();
    assert.equal(counter.ajvInstances, 0, 'no Ajv instance (and no schema compiled) before a request');

    const bad = await app.inject({ method: 'POST', url: '/echo', payload: { n: 'one', s: 2 } });
    assert.equal(bad.statusCode, 400);
    // The server's Ajv options reach the compiler: all errors, no coercion of 2 to "2".
    assert.match(bad.json().message, /must be integer/);
    assert.match(bad.json().message, /body\/s must be string/);
    assert.equal(counter.ajvInstances, 1);

    const good = await app.inject({ method: 'POST', url: '/echo', payload: { n: 1 } });
    assert.equal(good.statusCode, 200);
    assert.deepEqual(good.json(), { n: 1 }, 'the response schema serializes, dropping unknown properties');
    assert.equal((await app.inject({ method: 'GET', url: '/other?q=x' })).statusCode, 200);
    assert.equal(counter.ajvInstances, 1, 'one Ajv instance serves every route');
    await app.close();
  });

  it('report a schema that cannot compile on the route’s first request instead of at start', async () => {
    const app = Fastify({ schemaController: { compilersFactory: lazyCompilers() } });
    app.post('/broken', { schema: { body: { $ref: 'NoSuchSchema#' } } }, async () => ({}));
    app.get('/fine', async () => ({ ok: true }));
    await app.ready();
    assert.equal((await app.inject({ method: 'GET', url: '/fine' })).statusCode, 200);
    const res = await app.inject({ method: 'POST', url: '/broken', payload: {} });
    assert.equal(res.statusCode, 500);
    assert.match(res.json().message, /NoSuchSchema/);
    await app.close();
  });
});
