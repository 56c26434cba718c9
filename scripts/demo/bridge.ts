/**
 * The demo's TRP bridge: a second hub, reached only over the Travel Rule Protocol. Exchange D is a
 * member of it and hands out a travel address; Exchange A, on the first hub, pays to it. Both
 * hubs speak TRP to each other over mutual TLS with certificates from the demo's CA.
 */
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import {
  createHubClient,
  createReceiver,
  generateParticipantKeyPair,
  type HubClient,
  type ReceivedEvent,
  unwrap,
} from '../../src/sdk.js';
import { mainSample } from '../../test/unit/ivms101-fixtures.js';
import type { TestCa } from '../certs.js';
import { startDemoHub } from './hub.js';
import { run, until } from './steps.js';

export async function bridge(o: {
  ca: TestCa;
  originator: HubClient;
  originatorEvents: ReceivedEvent[];
  cleanup: (() => Promise<unknown> | unknown)[];
}): Promise<void> {
  const other = await run(
    'Start a second hub, with its TRP listener (certificates from the demo CA)',
    () => startDemoHub({ cleanup: o.cleanup, trp: { ca: o.ca, name: 'hub-2' } }),
    (h) => `${h.url}, TRP at ${h.trpUrl}`,
  );
  const keys = generateParticipantKeyPair();
  const events: ReceivedEvent[] = [];
  const D = await run(
    'Register Exchange D on the second hub and mint a travel address for its customer',
    async () => {
      const admin = createHubClient({ baseUrl: other.url, apiKey: other.adminKey });
      const created = await unwrap(
        admin.POST('/v1/admin/organizations', {
          body: {
            name: 'Exchange D',
            vaspDid: 'did:web:exchange-d.example',
            publicKey: keys.publicKeyPem,
            organizationType: 'verified',
          },
        }),
      );
      const receiver = createReceiver({
        secrets: [created.webhookSecret],
        privateKeyPem: keys.privateKeyPem,
        onEvent: (e) => events.push(e),
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      o.cleanup.unshift(() => new Promise((r) => receiver.close(() => r(undefined))));
      const client = createHubClient({ baseUrl: other.url, apiKey: created.apiKey });
      const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      await unwrap(client.PATCH('/v1/organizations/me', { body: { travelEndpoint: endpoint } }));
      const address = await unwrap(client.POST('/v1/travel-addresses', { body: {} }));
      return { client, address };
    },
    (d) => `${d.address.travelAddress.slice(0, 24)}… → ${d.address.url}`,
  );
  const started = await run(
    'A initiates a TRP transfer of 0.05 BTC-BTC to that travel address',
    () =>
      unwrap(
        o.originator.POST('/v1/transactions/initiate', {
          body: {
            protocol: 'TRP',
            travelAddress: D.address.travelAddress,
            transactionAsset: 'BTC-BTC',
            transactionAssetDecimals: 8,
            transactionAmount: '0.05',
            transactionBlockchainInfo: {},
            pii: mainSample(),
          } as never,
        }),
      ),
    (r) => `transactionRef ${r.transactionRef}, beneficiary ${r.beneficiaryVASPdid}`,
  );
  const received = await run(
    'D receives `received` through the bridge and decrypts the personal data',
    async () => {
      const e = await until('received at D', () => events.find((x) => x.event === 'received'));
      // What A sent, with the VASPs filled in by each hub from its own directory (SPEC §18).
      const { originator, beneficiary } = e.pii as Record<string, unknown>;
      if (
        !isDeepStrictEqual(
          { originator, beneficiary },
          { originator: mainSample().originator, beneficiary: mainSample().beneficiary },
        )
      ) {
        throw new Error('decrypted personal data differs from what A sent');
      }
      return e;
    },
    (e) =>
      `protocol ${e.payload.protocol}, from ${e.payload.originatorVASPdid}, ${e.payload.transactionAmount} ${e.payload.transactionAsset}`,
  );
  const address = 'bc1qdemo0beneficiary0address0xyz';
  await run('D approves it, naming the address to pay', () =>
    unwrap(
      D.client.POST('/v1/transactions/approve', {
        body: { transactionRef: received.payload.transactionRef, address },
      }),
    ),
  );
  await run(
    'A receives `approved` with D’s address',
    () =>
      until('approved at A', () =>
        o.originatorEvents.find(
          (e) => e.event === 'approved' && e.payload.transactionRef === started.transactionRef,
        ),
      ),
    (e) => `status ${e.payload.status}, pay to ${e.payload.address}`,
  );
  await run(
    'A shares the hash; D receives `tx-hash` (TRP’s confirmation)',
    async () => {
      await unwrap(
        o.originator.POST('/v1/transactions/tx-hash', {
          body: { transactionRef: started.transactionRef, txHash: `${'f0'.repeat(32)}` },
        }),
      );
      return until('tx-hash at D', () => events.find((e) => e.event === 'tx-hash'));
    },
    (e) => `txHash ${String(e.payload.txHash).slice(0, 16)}…`,
  );
}
