/**
 * The NOTIFY mailer against an SMTP server that answers every step just before its per-step
 * timeout: the session as a whole is cut at its deadline, so it can never outlast the worker's
 * lease (and be sent again by another claim while it still runs).
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LinkTokens } from '../../src/claims/tokens.js';
import { NotifyMailer } from '../../src/deliveries/email.js';
import { email } from '../../src/deliveries/events.js';

const announcement = () =>
  email('notify', 'ops@outside.example', null, {
    transactionRef: 'ref',
    transactionAsset: 'BTC-BTC',
    transactionAmount: '1',
    destination: 'bc1q',
    originatorVASPdid: 'did:web:a.example',
    originatorName: 'A',
    beneficiaryVASPid: null,
  });

/** A minimal SMTP server that waits `delayMs` before each reply and records what it saw. */
function slowSmtp(delayMs: number) {
  const seen = { commands: [] as string[], accepted: 0, closed: 0 };
  const server = createServer((socket: Socket) => {
    const reply = (line: string) =>
      setTimeout(() => {
        if (!socket.destroyed) socket.write(`${line}\r\n`);
      }, delayMs);
    let inData = false;
    let buffer = '';
    socket.on('close', () => {
      seen.closed++;
    });
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          seen.accepted++;
          reply('250 2.0.0 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.split(' ')[0]!.toUpperCase();
        seen.commands.push(verb);
        if (verb === 'EHLO') reply('250 slow.example');
        else if (verb === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (verb === 'QUIT') reply('221 bye');
        else reply('250 ok');
      }
    });
    reply('220 slow.example ESMTP');
  });
  return { server, seen };
}

describe('NOTIFY mailer deadline', () => {
  const { server, seen } = slowSmtp(400);
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `smtp://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
  });

  it('ends a session that runs past its deadline although every step answers in time', async () => {
    // Each step answers in 0.4 s, inside the 1 s per-step timeout; the session needs 2.4 s.
    const mailer = new NotifyMailer(url, {
      links: () => new LinkTokens(Buffer.alloc(32)).links('http://hub.example'),
      timeoutMs: 1000,
      deadlineMs: 1000,
    });
    const started = Date.now();
    const result = await mailer.send(announcement(), 'msg_deadline');
    const took = Date.now() - started;
    mailer.close();
    assert.equal(result.ok, false);
    assert.equal(result.error, 'timeout: the SMTP session took longer than 1 s');
    assert.ok(took >= 900 && took < 1800, `gave up after ${took} ms`);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(seen.closed, 1, 'the connection was closed');
    assert.equal(seen.accepted, 0, 'no message was handed over');
  });

  it('ends a session in flight when the hub shuts down, as a failure to retry', async () => {
    const mailer = new NotifyMailer(url, {
      links: () => new LinkTokens(Buffer.alloc(32)).links('http://hub.example'),
    });
    const sending = mailer.send(announcement(), 'msg_shutdown');
    await new Promise((r) => setTimeout(r, 300));
    mailer.abortAll();
    const result = await sending;
    mailer.close();
    assert.equal(result.ok, false);
    assert.equal(result.error, 'hub shut down before the SMTP server answered');
    assert.equal(seen.accepted, 0);
  });
});
