/**
 * `npm run demo`: the whole hub working, in one command. Starts a hub on a throw-away
 * embedded database, two exchanges with reference receivers (Exchange A originates, Exchange
 * B receives and holds an X25519 key), and a local SMTP server; then walks MAIN, BASIC,
 * NOTIFY with its sunrise path, and a transfer bridged by TRP to a second hub, through the
 * public API with the typed client, printing each step as it happens. Cleans up after itself;
 * exits non-zero when any step fails or times out.
 */

import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { SMTPServer } from 'smtp-server';
import {
  createHubClient,
  createReceiver,
  generateParticipantKeyPair,
  type ReceivedEvent,
  unwrap,
} from '../src/sdk.js';
import { mainSample, notifySample } from '../test/unit/ivms101-fixtures.js';
import { TestCa } from './certs.js';
import { bridge } from './demo/bridge.js';
import { startDemoHub } from './demo/hub.js';
import { green, plan, red, run, until } from './demo/steps.js';
import { sunrise } from './demo/sunrise.js';

const ca = TestCa.create('demo');
const cleanup: (() => Promise<unknown> | unknown)[] = [() => ca.remove()];

async function main() {
  plan(29);
  process.stdout.write(
    'Travel Rule Hub demo: four exchanges, three protocols, the sunrise path, and a TRP bridge between two throw-away hubs.\n\n',
  );

  // A local SMTP server catches the NOTIFY e-mail.
  const mails: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((r) => smtp.close(() => r(undefined))));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const hub = await run(
    'Start the hub on a throw-away embedded database',
    () => startDemoHub({ cleanup, smtpPort, trp: { ca, name: 'hub-1' } }),
    (h) => `${h.url}  (docs: ${h.url}/docs, SMTP on 127.0.0.1:${smtpPort}, TRP at ${h.trpUrl})`,
  );

  const admin = createHubClient({ baseUrl: hub.url, apiKey: hub.adminKey });
  const keysB = generateParticipantKeyPair();
  const eventsA: ReceivedEvent[] = [];
  const eventsB: ReceivedEvent[] = [];

  /** Registers an exchange, then starts its reference receiver with the secret it was issued. */
  async function exchange(name: string, did: string, events: ReceivedEvent[], publicKey?: string) {
    const created = await unwrap(
      admin.POST('/v1/admin/organizations', {
        body: { name, vaspDid: did, publicKey, organizationType: 'verified' },
      }),
    );
    const receiver = createReceiver({
      secrets: [created.webhookSecret],
      privateKeyPem: publicKey ? keysB.privateKeyPem : undefined,
      onEvent: (e) => events.push(e),
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanup.unshift(() => new Promise((r) => receiver.close(() => r(undefined))));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const client = createHubClient({ baseUrl: hub.url, apiKey: created.apiKey });
    await unwrap(client.PATCH('/v1/organizations/me', { body: { travelEndpoint: endpoint } }));
    return { client, did, id: created.organization.id, endpoint };
  }

  const A = await run(
    'Register Exchange A (originator) with its webhook receiver',
    () => exchange('Exchange A', 'did:web:exchange-a.example', eventsA),
    (x) => `${x.did} → ${x.endpoint}`,
  );
  const B = await run(
    'Register Exchange B (beneficiary) with an X25519 key and its receiver',
    () => exchange('Exchange B', 'did:web:exchange-b.example', eventsB, keysB.publicKeyPem),
    (x) => `${x.did} → ${x.endpoint}`,
  );

  const status = async (ref: string) =>
    (
      await unwrap(
        A.client.GET('/v1/transactions/{transactionRef}', { params: { path: { transactionRef: ref } } }),
      )
    ).status;
  const eventAt = (events: ReceivedEvent[], event: string, ref: string) => () =>
    events.find((e) => e.event === event && e.payload.transactionRef === ref);
  const transfer = (protocol: 'MAIN' | 'BASIC') => ({
    transactionAsset: 'ETH-USDC',
    transactionAssetDecimals: 6,
    transactionAmount: '1250.5',
    protocol,
    beneficiaryVASPdid: B.did,
    transactionBlockchainInfo: {
      origin: '0x1111111111111111111111111111111111111111',
      destination: '0x2222222222222222222222222222222222222222',
    },
    pii: mainSample(),
  });

  process.stdout.write('\nMAIN: metadata first, personal data after the originator confirms\n');
  const main = await run(
    'A initiates a MAIN transfer of 1250.5 ETH-USDC',
    () => unwrap(A.client.POST('/v1/transactions/initiate', { body: transfer('MAIN') as never })),
    (r) => `transactionRef ${r.transactionRef}, status ${r.status}`,
  );
  const received = await run(
    'B receives `received` (signed, verified; no personal data)',
    () => until('received at B', eventAt(eventsB, 'received', main.transactionRef)),
    (e) =>
      `webhook-id ${e.webhookId}; personal data in payload: ${JSON.stringify(e.payload).includes('Muster') ? 'YES' : 'none'}`,
  );
  if (JSON.stringify(received.payload).includes('Muster'))
    throw new Error('MAIN received carried personal data');
  await run('The hub marks it RECEIVER_NOTIFIED', () =>
    until('RECEIVER_NOTIFIED', async () =>
      (await status(main.transactionRef)) === 'RECEIVER_NOTIFIED' ? true : undefined,
    ),
  );
  await run('A confirms', () =>
    unwrap(A.client.POST('/v1/transactions/confirm', { body: { transactionRef: main.transactionRef } })),
  );
  await run(
    'B receives `confirmed-data` with the IVMS101 personal data',
    () => until('confirmed-data at B', eventAt(eventsB, 'confirmed-data', main.transactionRef)),
    (e) =>
      `originator ${(e.pii as any)?.originator?.originatorPersons?.[0]?.naturalPerson?.name?.[0]?.nameIdentifier?.[0]?.primaryIdentifier}`,
  );
  await run('B declines it (SANCTIONS_MATCH)', () =>
    unwrap(
      B.client.POST('/v1/transactions/decline', {
        body: {
          transactionRef: main.transactionRef,
          reason: { category: 'SANCTIONS_MATCH', description: 'Beneficiary matches a sanctions list.' },
        },
      }),
    ),
  );
  await run(
    'A receives `declined` with the reason',
    () => until('declined at A', eventAt(eventsA, 'declined', main.transactionRef)),
    (e) => `${e.payload.reason.category}: ${e.payload.reason.description}`,
  );

  process.stdout.write('\nBASIC: everything at once, personal data encrypted for B\n');
  const basic = await run(
    'A initiates a BASIC transfer',
    () => unwrap(A.client.POST('/v1/transactions/initiate', { body: transfer('BASIC') as never })),
    (r) => `transactionRef ${r.transactionRef}`,
  );
  await run(
    'B receives `received` and decrypts `encryptedPii` with its private key',
    async () => {
      const e = await until('received at B', eventAt(eventsB, 'received', basic.transactionRef));
      // What A sent, and the two VASPs the hub filled in from its directory (SPEC §18).
      const { originatingVASP, beneficiaryVASP, ...sent } = e.pii as Record<string, unknown>;
      if (!isDeepStrictEqual(sent, mainSample()) || !originatingVASP || !beneficiaryVASP)
        throw new Error('decrypted personal data differs from what A sent');
      return e;
    },
    (e) =>
      `JWE ${String(e.payload.ivms101_data.encryptedPii).slice(0, 32)}… → decrypted: what A sent, with both VASPs filled in`,
  );
  await run('The hub marks it CONFIRMED (no confirm step in BASIC)', () =>
    until('CONFIRMED', async () => ((await status(basic.transactionRef)) === 'CONFIRMED' ? true : undefined)),
  );

  process.stdout.write('\nNOTIFY: an exchange outside the directory, told by e-mail\n');
  const notify = await run('A initiates a NOTIFY transfer to compliance@exchange-c.example', () =>
    unwrap(
      A.client.POST('/v1/transactions/initiate', {
        body: {
          transactionAsset: 'TRX-USDT',
          transactionAssetDecimals: 6,
          transactionAmount: '99.99',
          protocol: 'NOTIFY',
          beneficiaryVASPid: '5b0e7c3e-6c1e-4a55-9a57-0f4c1d2e3f40',
          notificationEmail: 'compliance@exchange-c.example',
          transactionBlockchainInfo: { destination: 'TXYZ1234567890abcdefghijkLMNOPQRS' },
          pii: notifySample(),
        } as never,
      }),
    ),
  );
  await run(
    'The local SMTP server receives the announcement (no personal data)',
    async () => {
      const mail = await until('the NOTIFY e-mail', () =>
        mails.find((m) => m.includes(notify.transactionRef)),
      );
      if (mail.includes('Muster')) throw new Error('the e-mail carried personal data');
      return mail;
    },
    (m) => /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(m)?.[1]?.replace(/\r?\n[ \t]+/g, ' ') ?? '',
  );
  await run('The hub marks it RECEIVER_NOTIFIED', () =>
    until('RECEIVER_NOTIFIED', async () =>
      (await status(notify.transactionRef)) === 'RECEIVER_NOTIFIED' ? true : undefined,
    ),
  );

  process.stdout.write('\nNOTIFY sunrise: the outside exchange claims the transfer and joins the hub\n');
  await sunrise({
    hubUrl: hub.url,
    admin,
    originator: A.client,
    originatorEvents: eventsA,
    notificationEmail: 'compliance@exchange-c.example',
    transactionRef: notify.transactionRef,
    mails,
    cleanup,
  });

  process.stdout.write('\nTRP bridge: a VASP on another network, reached by its travel address\n');
  await bridge({ ca, originator: A.client, originatorEvents: eventsA, cleanup });
}

let failed = false;
try {
  await main();
  process.stdout.write(`\n${green('Demo complete:')} every step passed.\n`);
} catch {
  failed = true;
  process.stdout.write(`\n${red('Demo failed.')}\n`);
} finally {
  for (const c of cleanup) await Promise.resolve(c()).catch(() => {});
}
process.exit(failed ? 1 : 0);
