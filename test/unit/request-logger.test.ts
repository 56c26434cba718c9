import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { lazyRequestLogger } from '../../src/http/request-logger.js';

/** A Fastify app with the lazy request logger, its log lines, and how many children pino built. */
async function appAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({
    logger: { level, stream, redact: { paths: ['*.secret'], censor: '[redacted]' } },
    childLoggerFactory: lazyRequestLogger,
    disableRequestLogging: true,
  });
  let children = 0;
  const child = app.log.child;
  app.log.child = function (this: typeof app.log, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof child;
  app.get('/quiet', async (request) => {
    request.log.info('not at warn');
    request.log.debug('nor this');
    return { ok: true };
  });
  app.get('/loud', async (request) => {
    request.log.warn({ detail: { secret: 's3cr3t' } }, 'something to see');
    request.log.error('and this');
    return { ok: true };
  });
  await app.ready();
  return { app, lines, children: () => children };
}

describe('lazy request logger', () => {
  it('builds no child logger for a request that writes nothing at an enabled level', async () => {
    const { app, lines, children } = await appAt('warn');
    assert.equal((await app.inject({ method: 'GET', url: '/quiet' })).statusCode, 200);
    assert.equal(children(), 0);
    assert.deepEqual(lines, []);
    await app.close();
  });

  it('writes enabled lines through one real child: request id bound, redaction kept', async () => {
    const { app, lines, children } = await appAt('warn');
    const res = await app.inject({ method: 'GET', url: '/loud', headers: { 'request-id': 'ignored' } });
    assert.equal(res.statusCode, 200);
    assert.equal(children(), 1);
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg]),
      [
        [40, 'something to see'],
        [50, 'and this'],
      ],
    );
    assert.ok(lines.every((l) => typeof l.reqId === 'string' && l.reqId.length > 0));
    assert.equal(lines[0]!.reqId, lines[1]!.reqId);
    assert.deepEqual(lines[0]!.detail, { secret: '[redacted]' });
    await app.close();
  });

  it('follows the app logger level: at info the same route logs', async () => {
    const { app, lines, children } = await appAt('info');
    await app.inject({ method: 'GET', url: '/quiet' });
    assert.equal(children(), 1);
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['not at warn'],
    );
    await app.close();
  });
});
