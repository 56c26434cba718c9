/**
 * The hub's TRP callbacks (SPEC §16) take a request-identifier of the peer's choosing (TRISA's
 * client makes a fresh one per request) and echo it; the same identifier again with the same body
 * gets the first answer, with another body 409. Both callbacks: the resolution of an outbound
 * transfer and the confirmation of an inbound one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TestCa } from '../../scripts/certs.js';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { backendSkip, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import type { Json } from '../support/requests.js';
import { inquiryBody, peerPost, TrpPeer, trpHub, trpInitiation } from '../support/trp-peer.js';

const ca = TestCa.create('callbacks');
const client = ca.issue('peer-vasp');
after(() => ca.remove());

/** A POST as the peer makes it to a callback, under `rid`: the status and the echoed identifier. */
async function post(url: string, rid: string, body: unknown): Promise<{ status: number; rid: unknown }> {
  const res = await peerPost(url, { ca, leaf: client }, body, { rid });
  return { status: res.status, rid: res.headers['request-identifier'] };
}

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`TRP callbacks and request-identifiers [${backend}]`, {
    skip: await backendSkip(backend, 'TRP callbacks'),
  }, () => {
    let hub: TestHub;
    let peer: TrpPeer;
    let receiver: Receiver;
    let alice: OrgFixture;
    let bob: OrgFixture;

    before(async () => {
      peer = await TrpPeer.start(ca, { name: 'Peer VASP', lei: '5493001KJTIIGC8Y1R12' });
      receiver = await Receiver.start();
      // Alice (unverified) may start two outbound TRP transfers a day: the two tests below.
      hub = await trpHub(backend, ca, 'callbacks-hub', { HUB_NOTIFY_DAILY_LIMIT: '2' });
      alice = await hub.createOrg({ travelEndpoint: `${receiver.url}/alice` });
      bob = await hub.createOrg({
        travelEndpoint: `${receiver.url}/bob`,
        publicKey: generateParticipantKeyPair().publicKeyPem,
      });
    });
    after(async () => {
      await hub?.destroy();
      await peer?.close();
      await receiver?.close();
    });

    const read = async (key: string, ref: string) =>
      (await hub.request('GET', `/v1/transactions/${ref}`, { key })).body;

    it('takes a resolution under a fresh request-identifier, echoes it, replays it, and refuses it for another body', async () => {
      const body = trpInitiation(peer.url);
      const started = await hub.request('POST', '/v1/transactions/initiate', { key: alice.apiKey, body });
      assert.equal(started.status, 200, started.text);
      const ref = started.body.transactionRef as string;
      const inquiry = await eventually(
        () => peer.seen.find((r) => r.path.startsWith('/inquiries/') && r.body.IVMS101),
        'the inquiry at the peer',
      );
      const callback = inquiry.body.callback as string;
      const approved = {
        approved: { address: '0x3333333333333333333333333333333333333333', callback: `${peer.url}/cb/1` },
      };
      const rid = randomUUID();
      assert.deepEqual(await post(callback, rid, approved), { status: 204, rid });
      assert.equal((await read(alice.apiKey, ref)).status, 'CONFIRMED');
      // The same request again: the same answer, nothing new.
      assert.deepEqual(await post(callback, rid, approved), { status: 204, rid });
      // The same identifier for another request: refused.
      const other = await post(callback, rid, { rejected: 'changed our mind' });
      assert.equal(other.status, 409);
      assert.equal((await read(alice.apiKey, ref)).status, 'CONFIRMED');
      const history = (await read(alice.apiKey, ref)).history.map((h: Json) => h.status);
      assert.equal(history.filter((s: string) => s === 'CONFIRMED').length, 1);
    });

    it('takes a confirmation under a fresh request-identifier, and refuses it for another body', async () => {
      const minted = await hub.request('POST', '/v1/travel-addresses', { key: bob.apiKey });
      assert.equal(minted.status, 201, minted.text);
      const before = peer.seen.length;
      // The inquiry, from the certificate that will confirm (its callback on the peer's server).
      const inquiry = inquiryBody(`${peer.url}/callback/${randomUUID()}`);
      assert.equal((await post(minted.body.url, randomUUID(), inquiry)).status, 200);
      const ref = await eventually(async () => {
        const list = await hub.request('GET', '/v1/transactions?role=beneficiary', { key: bob.apiKey });
        return list.body.transactions.find((x: Json) => x.status === 'RECEIVER_NOTIFIED')?.transactionRef as
          | string
          | undefined;
      }, 'the inbound transfer');
      const approve = await hub.request('POST', '/v1/transactions/approve', {
        key: bob.apiKey,
        body: { transactionRef: ref, address: '0x4444444444444444444444444444444444444444' },
      });
      assert.equal(approve.status, 200, approve.text);
      const resolution = await eventually(
        () => peer.seen.slice(before).find((r) => r.path.startsWith('/callback/') && r.body.approved),
        'the approval at the peer',
      );
      const confirmations = resolution.body.approved.callback as string;
      const rid = randomUUID();
      const txid = '0xfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeed';
      assert.deepEqual(await post(confirmations, rid, { txid }), { status: 204, rid });
      assert.equal((await read(bob.apiKey, ref)).transactionBlockchainInfo.txHash, txid);
      assert.deepEqual(await post(confirmations, rid, { txid }), { status: 204, rid });
      assert.equal((await post(confirmations, rid, { canceled: 'no' })).status, 409);
      assert.equal((await read(bob.apiKey, ref)).status, 'CONFIRMED');
    });

    it('counts an unverified organization’s outbound TRP initiations in its daily limit', async () => {
      const body = trpInitiation(peer.url);
      const second = await hub.request('POST', '/v1/transactions/initiate', { key: alice.apiKey, body });
      assert.equal(second.status, 200, second.text);
      const third = await hub.request('POST', '/v1/transactions/initiate', { key: alice.apiKey, body });
      assert.equal(third.status, 429, third.text);
      assert.equal(third.body.code, 'RATE_LIMITED');
      assert.ok(Number(third.headers.get('retry-after')) > 0);
    });
  });
}
