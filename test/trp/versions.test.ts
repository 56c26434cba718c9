/**
 * TRP peers as they are (SPEC §16): a peer that speaks only 3.1.0 (as TRISA's library does)
 * completes transfers with the hub as beneficiary and as originator: outbound the hub falls back
 * from 3.2.1 once and remembers what worked; inbound it answers in the peer's version. And an
 * inbound peer is named by its client certificate: a callback on a host the certificate does not
 * name is refused (422), and the transfer records the certificate's subject and fingerprint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Leaf, TestCa } from '../../scripts/certs.js';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { backendSkip, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver, verified } from '../support/receiver.js';
import type { Json } from '../support/requests.js';
import {
  inquiryBody,
  type PeerServer,
  peerPost,
  startPeerServer,
  trpHub,
  trpInitiation,
} from '../support/trp-peer.js';

const ca = TestCa.create('versions');
after(() => ca.remove());

interface Seen {
  method: string;
  path: string;
  version: unknown;
  rid: unknown;
  body: Json;
}

/** A TRP VASP that takes api-version 3.1.0 only (400 otherwise), as server and as client. */
class OldPeer {
  private constructor(
    /** Every request the hub made to the peer, in order. */
    readonly seen: Seen[],
    readonly leaf: Leaf,
    private readonly peer: PeerServer,
  ) {}

  get url(): string {
    return this.peer.url;
  }

  static async start(): Promise<OldPeer> {
    const leaf = ca.issue('old-peer');
    const seen: Seen[] = [];
    const peer = await startPeerServer(ca, leaf, (req, body, res) => {
      const version = req.headers['api-version'];
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        version,
        rid: req.headers['request-identifier'],
        body,
      });
      if (version !== '3.1.0') {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('unsupported api-version');
        return;
      }
      res.setHeader('api-version', '3.1.0');
      if (req.url === '/identity') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'Old Peer VASP', lei: '5493001KJTIIGC8Y1R12' }));
      } else if (req.url?.startsWith('/inquiries/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"3.1.0"}');
      } else {
        res.writeHead(204).end();
      }
    });
    return new OldPeer(seen, leaf, peer);
  }

  /** A POST as this peer makes it (api-version 3.1.0). */
  post(url: string, body: unknown) {
    return peerPost(url, { ca, leaf: this.leaf }, body, { version: '3.1.0' });
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}

for (const backend of ['pglite', 'postgres'] as const) {
  describe(`TRP peers that speak 3.1.0 [${backend}]`, {
    skip: await backendSkip(backend, 'TRP peers that speak 3.1.0'),
  }, () => {
    let hub: TestHub;
    let peer: OldPeer;
    let receiver: Receiver;
    let alice: OrgFixture;
    let bob: OrgFixture;

    before(async () => {
      peer = await OldPeer.start();
      receiver = await Receiver.start();
      hub = await trpHub(backend, ca, 'versions-hub');
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

    it('sends to a 3.1.0 beneficiary: falls back once, remembers it, and completes the transfer', async () => {
      const body = trpInitiation(peer.url);
      const started = await hub.request('POST', '/v1/transactions/initiate', { key: alice.apiKey, body });
      assert.equal(started.status, 200, started.text);
      const ref = started.body.transactionRef as string;
      await eventually(
        async () => (await read(alice.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
        'notified',
      );
      const inquiries = peer.seen.filter((s) => s.path.startsWith('/inquiries/'));
      assert.deepEqual(
        inquiries.map((s) => s.version),
        ['3.2.1', '3.1.0'],
      );
      assert.equal(inquiries[0]!.rid, inquiries[1]!.rid);
      // /identity is read in the transfer's version, with its request-identifier.
      const identity = await eventually(() => peer.seen.find((s) => s.path === '/identity'), 'identity read');
      assert.equal(identity.version, '3.1.0');
      assert.equal(identity.rid, inquiries[0]!.rid);

      // The peer approves through the callback, in its version.
      const approved = await peer.post(inquiries[1]!.body.callback, {
        approved: { address: '0x5555555555555555555555555555555555555555', callback: `${peer.url}/cb/1` },
      });
      assert.equal(approved.status, 204);
      assert.equal(approved.headers['api-version'], '3.1.0');
      assert.equal((await read(alice.apiKey, ref)).status, 'CONFIRMED');
      const txHash = '0xabababababababababababababababababababababababababababababababab';
      const shared = await hub.request('POST', '/v1/transactions/tx-hash', {
        key: alice.apiKey,
        body: { transactionRef: ref, txHash },
      });
      assert.equal(shared.status, 200, shared.text);
      const confirmation = await eventually(
        () => peer.seen.find((s) => s.path === '/cb/1' && s.version === '3.1.0' && s.body.txid === txHash),
        'the txid at the peer in 3.1.0',
      );
      assert.ok(confirmation);
      const [row] = await hub.db.query<{ api_version: string; name: string }>(
        'SELECT api_version, name FROM trp_counterparties WHERE host = $1',
        [new URL(peer.url).host],
      );
      assert.deepEqual({ ...row }, { api_version: '3.1.0', name: 'Old Peer VASP' });

      // The next transfer to it starts in 3.1.0.
      const before = peer.seen.length;
      const next = await hub.request('POST', '/v1/transactions/initiate', { key: alice.apiKey, body });
      assert.equal(next.status, 200, next.text);
      await eventually(
        async () => (await read(alice.apiKey, next.body.transactionRef)).status === 'RECEIVER_NOTIFIED',
        'the next one notified',
      );
      assert.deepEqual(
        peer.seen
          .slice(before)
          .filter((s) => s.path.startsWith('/inquiries/'))
          .map((s) => s.version),
        ['3.1.0'],
      );
    });

    it('takes a 3.1.0 originator: answers in 3.1.0 and its approval reaches the peer', async () => {
      const minted = await hub.request('POST', '/v1/travel-addresses', { key: bob.apiKey });
      assert.equal(minted.status, 201, minted.text);
      const answer = await peer.post(minted.body.url, inquiryBody(`${peer.url}/callback/in-1`));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers['api-version'], '3.1.0');
      assert.deepEqual(JSON.parse(answer.text), { version: '3.1.0' });
      const received = await eventually(
        () => receiver.to('/bob/v1/notify/received').map((r) => verified(r, bob.webhookSecret))[0],
        'received',
      );
      const ref = received.transactionRef as string;
      // The member screens the peer its certificate names.
      assert.match(received.trpPeer.certificateSubject, /CN=old-peer/);
      assert.match(received.trpPeer.certificateFingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      assert.equal(received.trpPeer.host, new URL(peer.url).host);
      await eventually(async () => (await read(bob.apiKey, ref)).status === 'RECEIVER_NOTIFIED', 'notified');
      const seen = await read(bob.apiKey, ref);
      assert.match(seen.trp.peer.certificateSubject, /CN=old-peer/);
      const approve = await hub.request('POST', '/v1/transactions/approve', {
        key: bob.apiKey,
        body: { transactionRef: ref, address: '0x6666666666666666666666666666666666666666' },
      });
      assert.equal(approve.status, 200, approve.text);
      const resolution = await eventually(
        () => peer.seen.find((s) => s.path === '/callback/in-1' && s.body.approved),
        'the approval at the peer',
      );
      assert.equal(resolution.version, '3.1.0');
      // Delivered at the first try: the peer took it.
      await eventually(async () => {
        const rows = await hub.db.query<{ status: string; attempts: number }>(
          `SELECT status, attempts FROM deliveries WHERE transaction_ref = $1 AND event = 'trp-resolution'`,
          [ref],
        );
        return rows[0]?.status === 'DELIVERED' && rows[0].attempts === 1;
      }, 'the resolution delivered');
    });

    it('refuses an inquiry whose callback is on a host its certificate does not name (422)', async () => {
      const minted = await hub.request('POST', '/v1/travel-addresses', { key: bob.apiKey });
      const spoofed = await peer.post(minted.body.url, inquiryBody('https://vasp-b.example/trp/callback'));
      assert.equal(spoofed.status, 422, spoofed.text);
      assert.deepEqual(JSON.parse(spoofed.text).problems, [
        { path: '/callback', message: 'must be on a host named by the client certificate' },
      ]);
    });

    it('lists the peers it knows for the operator, and lets the operator map a host to a certificate, block it (both ways), set its amounts', async () => {
      const host = new URL(peer.url).host;
      assert.equal(
        (await hub.request('GET', '/v1/admin/trp/counterparties', { key: bob.apiKey })).status,
        403,
      );
      const list = await hub.admin('GET', '/v1/admin/trp/counterparties');
      assert.equal(list.status, 200, list.text);
      const known = list.body.counterparties.find((c: Json) => c.host === host);
      assert.equal(known.name, 'Old Peer VASP');
      assert.equal(known.apiVersion, '3.1.0');
      assert.equal(known.addedBy, 'hub');
      assert.match(known.certificateSubject, /CN=old-peer/);
      const fingerprint = known.certificateFingerprint as string;
      assert.match(fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

      // A host the certificate does not name, mapped by the operator to that certificate: taken.
      const minted = await hub.request('POST', '/v1/travel-addresses', { key: bob.apiKey });
      const mapped = 'vasp-b.example';
      const refused = await peer.post(minted.body.url, inquiryBody(`https://${mapped}/trp/cb`));
      assert.equal(refused.status, 422);
      const added = await hub.admin('POST', '/v1/admin/trp/counterparties', {
        host: mapped,
        certificateFingerprint: fingerprint.toLowerCase(),
      });
      assert.equal(added.status, 201, added.text);
      assert.equal(added.body.pinned, true);
      assert.equal(added.body.certificateFingerprint, fingerprint);
      assert.equal((await hub.admin('POST', '/v1/admin/trp/counterparties', { host: mapped })).status, 409);
      const taken = await peer.post(minted.body.url, inquiryBody(`https://${mapped}/trp/cb`));
      assert.equal(taken.status, 200, taken.text);

      // Pinned to another certificate: the peer's own host is refused; blocked: 403.
      const other = `${'AB:'.repeat(31)}AB`;
      const own = await hub.admin('PATCH', `/v1/admin/trp/counterparties/${known.id}`, {
        certificateFingerprint: other,
        amountEncoding: 'whole-units-number',
      });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.body.amountEncoding, 'whole-units-number');
      assert.equal((await peer.post(minted.body.url, inquiryBody(`${peer.url}/cb/2`))).status, 422);
      await hub.admin('PATCH', `/v1/admin/trp/counterparties/${known.id}`, {
        certificateFingerprint: null,
        blocked: true,
      });
      assert.equal((await peer.post(minted.body.url, inquiryBody(`${peer.url}/cb/3`))).status, 403);
      // Nor does a member's transfer go to it: refused at initiation, nothing kept.
      const toBlocked = trpInitiation(peer.url);
      const countOf = async () =>
        (await hub.db.query('SELECT count(*)::int AS n FROM transactions'))[0]!.n as number;
      const before = await countOf();
      const outbound = await hub.request('POST', '/v1/transactions/initiate', {
        key: alice.apiKey,
        body: toBlocked,
      });
      assert.equal(outbound.status, 422, outbound.text);
      assert.equal(outbound.body.code, 'UNKNOWN_COUNTERPARTY');
      assert.match(outbound.body.detail, /blocked/);
      assert.equal(await countOf(), before, 'no transaction kept');
      assert.equal(
        (await hub.admin('PATCH', `/v1/admin/trp/counterparties/${known.id}`, { bogus: 1 })).status,
        400,
      );
      const audit = await hub.db.query<{ action: string; actor: string }>(
        `SELECT action, actor FROM audit_events WHERE subject_type = 'trp_counterparty' ORDER BY id`,
      );
      assert.deepEqual(
        audit.map((r) => r.action),
        ['trp.counterparty_added', 'trp.counterparty_updated', 'trp.counterparty_updated'],
      );
      assert.equal(audit[0]!.actor, 'operator:bootstrap');
    });
  });
}
