/**
 * Search, lists and CSV export (SPEC §17 `q`, `format=csv`): every filter, short references,
 * customer names through the blind index (who may, who may not, after a rotation, for rows stored
 * before the index), the CSV's content and headers, and the audited export with personal data.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, it } from 'node:test';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { eachBackend, type OrgFixture } from '../harness.js';
import { addPerson, as, type Session, signIn } from '../support/people.js';
import { eventually } from '../support/receiver.js';
import { basicRequest, type Json, mainRequest } from '../support/requests.js';
import { SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

/** A request whose originator is `given family` (and the sample's beneficiary, John Doe). */
function named(request: Json, family: string, given: string): Json {
  const id = request.pii.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0];
  id.primaryIdentifier = family;
  id.secondaryIdentifier = given;
  return request;
}

/** The records of a CSV text (no quoted line breaks in these tests). */
const csvRecords = (text: string) =>
  text
    .split('\r\n')
    .filter((l) => l.length > 0)
    .map((l) => l.split(','));

eachBackend(
  'search, lists and CSV export',
  (hub, backend) => {
    let a: OrgFixture;
    let b: OrgFixture;
    let c: OrgFixture;
    const refs: Record<'muller' | 'smith' | 'small', string> = { muller: '', smith: '', small: '' };
    const SMALL_DESTINATION = `0xAbCdEf${randomBytes(17).toString('hex')}`;
    const list = (query: string, key = a.apiKey) =>
      hub().request('GET', `/v1/transactions?${query}`, { key });
    const refsOf = (res: { body: { transactions: { transactionRef: string }[] } }) =>
      res.body.transactions.map((t) => t.transactionRef).sort();

    it('stores three transfers to search', async () => {
      a = await hub().createOrg({ name: `Alpha Exchange ${randomBytes(3).toString('hex')}` });
      b = await hub().createOrg({
        name: `Bravo Custody ${randomBytes(3).toString('hex')}`,
        travelEndpoint: 'https://beneficiary.example',
        publicKey: generateParticipantKeyPair().publicKeyPem,
      });
      c = await hub().createOrg();
      const send = async (body: Json) => {
        const res = await hub().request('POST', '/v1/transactions/initiate', { key: a.apiKey, body });
        assert.equal(res.status, 200, res.text);
        return res.body.transactionRef as string;
      };
      refs.muller = await send(named(mainRequest(b.vaspDid), 'Müller-Lüdenscheidt', 'Ödön'));
      refs.smith = await send(named(basicRequest(b.vaspDid), 'Smith', 'Jane'));
      const small = named(mainRequest(b.vaspDid), 'Okafor', 'Ada');
      small.transactionAmount = '10';
      small.transactionBlockchainInfo.destination = SMALL_DESTINATION;
      refs.small = await send(small);
      // BASIC: the beneficiary's acknowledgement confirms it, so its data reached the beneficiary.
      await hub().acknowledgeReceived(refs.smith);
    });

    it('lists with a total, pages up to 200, and refuses 201', async () => {
      const all = await list('limit=200');
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.total, 3);
      assert.equal(all.body.transactions.length, 3);
      const page = await list('limit=1');
      assert.equal(page.body.total, 3, 'the total counts every page');
      assert.equal(page.body.transactions.length, 1);
      for (const bad of ['limit=201', 'limit=0', 'limit=abc']) {
        const res = await list(bad);
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.code, 'VALIDATION_FAILED');
        assert.equal(res.body.errors[0].path, '/querystring/limit');
      }
    });

    it('finds a transfer by its reference, or by its first 8+ characters in any case', async () => {
      assert.deepEqual(refsOf(await list(`q=${refs.muller}`)), [refs.muller]);
      assert.deepEqual(refsOf(await list(`q=${refs.muller.toUpperCase()}`)), [refs.muller]);
      const short = refs.muller.slice(0, 8).toUpperCase();
      const res = await list(`q=${short}`);
      assert.deepEqual(refsOf(res), [refs.muller]);
      assert.equal(res.body.total, 1);
      // Seven characters are not a short reference (and match nothing else here).
      assert.deepEqual(refsOf(await list(`q=${refs.muller.slice(0, 7)}`)), []);
      // The counterparty sees it by the same short reference; a stranger does not.
      assert.deepEqual(refsOf(await list(`q=${short}`, b.apiKey)), [refs.muller]);
      assert.deepEqual(refsOf(await list(`q=${short}`, c.apiKey)), []);
    });

    it('finds transfers by address in any case, and by the counterparty’s name or DID', async () => {
      assert.deepEqual(refsOf(await list(`q=${SMALL_DESTINATION.toLowerCase()}`)), [refs.small]);
      assert.deepEqual(refsOf(await list(`q=${SMALL_DESTINATION.toUpperCase()}`)), [refs.small]);
      const origin = '0x1111111111111111111111111111111111111111';
      assert.equal((await list(`q=${origin}`)).body.total, 3);
      const everything = [refs.muller, refs.smith, refs.small].sort();
      assert.deepEqual(
        refsOf(await list(`q=${encodeURIComponent(b.name.slice(0, 12).toLowerCase())}`)),
        everything,
      );
      assert.deepEqual(refsOf(await list(`q=${encodeURIComponent(b.vaspDid.toUpperCase())}`)), everything);
      assert.deepEqual(
        refsOf(await list(`q=${encodeURIComponent(a.name.toUpperCase())}`, b.apiKey)),
        everything,
      );
      // The caller's own name is not a counterparty's; LIKE's wildcards are plain text.
      assert.equal((await list(`q=${encodeURIComponent(a.name)}`)).body.total, 0);
      assert.equal((await list('q=%25')).body.total, 0);
      assert.equal((await list('q=_')).body.total, 0);
    });

    it('filters by asset in any case and by an amount range in whole units', async () => {
      assert.deepEqual(refsOf(await list('asset=eth-usdc')), [refs.muller, refs.small].sort());
      assert.deepEqual(refsOf(await list('asset=BTC-btc')), [refs.smith]);
      assert.deepEqual(refsOf(await list('minAmount=1&maxAmount=100')), [refs.small]);
      assert.deepEqual(refsOf(await list('maxAmount=0.5')), [refs.smith]);
      assert.deepEqual(refsOf(await list('minAmount=1250.500001')), [refs.muller]);
      assert.deepEqual(refsOf(await list('minAmount=1250.5000011')), []);
      const reversed = await list('minAmount=100&maxAmount=10');
      assert.equal(reversed.status, 400);
      assert.equal(reversed.body.errors[0].path, '/querystring/minAmount');
      for (const bad of ['minAmount=1e5', 'maxAmount=-1', 'minAmount=01', 'maxAmount=1.']) {
        const res = await list(bad);
        assert.equal(res.status, 400, bad);
        assert.match(res.body.errors[0].path, /^\/querystring\/(min|max)Amount$/);
      }
      // Filters combine, and the existing ones keep working.
      assert.deepEqual(refsOf(await list('protocol=BASIC&asset=btc-btc&status=CONFIRMED')), [refs.smith]);
      assert.deepEqual(refsOf(await list('role=beneficiary')), []);
      assert.equal((await list('sort=sideways')).status, 400);
    });

    it('sorts newest or oldest first, and its cursors walk every row once either way', async () => {
      const newest = (await list('limit=200')).body.transactions.map((t: any) => t.transactionRef);
      const oldest = (await list('limit=200&sort=oldest')).body.transactions.map(
        (t: any) => t.transactionRef,
      );
      assert.deepEqual(oldest, [...newest].reverse());
      assert.deepEqual(oldest, [refs.muller, refs.smith, refs.small]);
      for (const [sort, expected] of [
        ['newest', newest],
        ['oldest', oldest],
      ] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res: any = await list(
            `limit=1&sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          assert.equal(res.status, 200, res.text);
          seen.push(...res.body.transactions.map((t: any) => t.transactionRef));
          cursor = res.body.nextCursor;
        } while (cursor);
        assert.deepEqual(seen, expected, sort);
      }
    });

    it('finds customers by name with a key: any case, no diacritics, every word must match', async () => {
      assert.deepEqual(refsOf(await list('customer=muller')), [refs.muller]);
      assert.deepEqual(refsOf(await list(`customer=${encodeURIComponent('ODON lüdenscheidt')}`)), [
        refs.muller,
      ]);
      assert.deepEqual(refsOf(await list(`customer=${encodeURIComponent('Müller-Lüdenscheidt')}`)), [
        refs.muller,
      ]);
      assert.deepEqual(refsOf(await list('customer=muller%20smith')), []);
      // The sample's beneficiary, John Doe, is on all three.
      assert.equal((await list('customer=john%20doe')).body.total, 3);
      // A read-scope key may search too.
      const readKey = await hub().request('POST', '/v1/organizations/me/api-keys', {
        key: a.apiKey,
        body: { scope: 'read' },
      });
      assert.equal(readKey.status, 201, readKey.text);
      assert.deepEqual(refsOf(await list('customer=smith', readKey.body.apiKey)), [refs.smith]);
      // Nothing of the names is stored in clear.
      const rows = await hub().db.query('SELECT unnest(name_tokens) AS token FROM transactions');
      assert.ok(rows.length >= 8);
      const dump = JSON.stringify(rows);
      for (const word of ['muller', 'smith', 'odon']) {
        assert.ok(!dump.includes(Buffer.from(word).toString('hex')), word);
      }
      for (const bad of ['customer=1234', 'customer=', `customer=${'abcdefghi'.split('').join('%20')}`]) {
        const res = await list(bad);
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.errors[0].path, '/querystring/customer');
        assert.ok(!res.text.includes('1234'), 'the problem does not repeat the name');
      }
    });

    it('matches a beneficiary only on transfers whose personal data reached it', async () => {
      // The CONFIRMED BASIC transfer's names, not those of MAIN transfers still waiting for Confirm.
      assert.deepEqual(refsOf(await list('customer=smith', b.apiKey)), [refs.smith]);
      assert.deepEqual(refsOf(await list('customer=muller', b.apiKey)), []);
      assert.deepEqual(refsOf(await list('customer=john', b.apiKey)), [refs.smith]);
      assert.deepEqual(refsOf(await list('customer=smith', c.apiKey)), []);
    });

    let analyst: Session;
    let viewer: Session;
    it('lets an analyst search customer names and refuses a viewer, naming no one', async () => {
      const admin = await addPerson(hub(), smtp, { key: a.apiKey }, 'admin');
      const adminSession = (await signIn(hub(), admin.email)).session!;
      const analystUser = await addPerson(hub(), smtp, adminSession, 'analyst');
      const viewerUser = await addPerson(hub(), smtp, adminSession, 'viewer');
      analyst = (await signIn(hub(), analystUser.email)).session!;
      viewer = (await signIn(hub(), viewerUser.email)).session!;
      const found = await as(hub(), analyst, 'GET', '/v1/transactions?customer=okafor');
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(refsOf(found), [refs.small]);
      const refused = await as(hub(), viewer, 'GET', '/v1/transactions?customer=okafor');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'FORBIDDEN');
      assert.ok(!refused.text.toLowerCase().includes('okafor'));
      // The viewer still searches everything else.
      const short = await as(hub(), viewer, 'GET', `/v1/transactions?q=${refs.small.slice(0, 10)}`);
      assert.deepEqual(refsOf(short), [refs.small]);
    });

    it('exports the filtered list as CSV, streamed, with a header row and no personal data', async () => {
      const res = await list('format=csv&asset=ETH-USDC&sort=oldest');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(
        res.headers.get('content-disposition') ?? '',
        /^attachment; filename="transactions-\d{8}T\d{6}Z\.csv"$/,
      );
      const [header, ...records] = csvRecords(res.text);
      assert.deepEqual(header!.slice(0, 8), [
        'transactionRef',
        'createdAt',
        'updatedAt',
        'status',
        'protocol',
        'role',
        'asset',
        'amount',
      ]);
      assert.ok(!header!.includes('originatorCustomer'));
      assert.deepEqual(
        records.map((r) => r[0]),
        [refs.muller, refs.small],
      );
      const col = (name: string) => header!.indexOf(name);
      assert.equal(records[1]![col('destinationAddress')], SMALL_DESTINATION);
      assert.equal(records[1]![col('amount')], '10');
      assert.equal(records[1]![col('role')], 'originator');
      for (const word of ['Müller', 'Okafor', 'Doe']) assert.ok(!res.text.includes(word), word);
      // A viewer may export without personal data; not with it.
      assert.equal((await as(hub(), viewer, 'GET', '/v1/transactions?format=csv')).status, 200);
      const refused = await as(hub(), viewer, 'GET', '/v1/transactions?format=csv&includePii=true');
      assert.equal(refused.status, 403);
      for (const bad of ['includePii=true', 'format=csv&limit=10', 'format=csv&cursor=x', 'format=xml']) {
        assert.equal((await list(bad)).status, 400, bad);
      }
    });

    it('adds the customers’ names with includePii=true, audited once with the filters and count', async () => {
      const before = await hub().db.query(
        `SELECT count(*)::int AS n FROM audit_events WHERE action = 'transaction.exported'`,
      );
      const res = await as(
        hub(),
        analyst,
        'GET',
        '/v1/transactions?format=csv&includePii=true&asset=eth-usdc',
      );
      assert.equal(res.status, 200, res.text);
      const [header, ...records] = csvRecords(res.text);
      const at = (r: string[], name: string) => r[header!.indexOf(name)];
      const muller = records.find((r) => r[0] === refs.muller)!;
      assert.equal(at(muller, 'originatorCustomer'), 'Ödön Müller-Lüdenscheidt');
      assert.equal(at(muller, 'beneficiaryCustomer'), 'John Doe');
      const rows = await hub().db.query<{ actor: string; details: any }>(
        `SELECT actor, details FROM audit_events WHERE action = 'transaction.exported' ORDER BY seq`,
      );
      assert.equal(rows.length, (before[0] as any).n + 1, 'one audit row per export');
      const row = rows[rows.length - 1]!;
      const details = typeof row.details === 'string' ? JSON.parse(row.details) : row.details;
      assert.equal(row.actor, `user:${analyst.user.id}`);
      assert.equal(details.count, 2);
      assert.deepEqual(details.filters, { asset: 'eth-usdc' });
      assert.equal(details.includePii, true);
      // The beneficiary's export leaves blank the names it may not read yet.
      const theirs = await list('format=csv&includePii=true&sort=oldest', b.apiKey);
      const [h2, ...r2] = csvRecords(theirs.text);
      const names = (r: string[]) => r[h2!.indexOf('originatorCustomer')];
      assert.deepEqual(r2.map(names), ['', 'Jane Smith', '']);
      // A name search's audit row keeps the name out.
      await list('format=csv&includePii=true&customer=okafor');
      const last = await hub().db.query<{ details: any }>(
        `SELECT details FROM audit_events WHERE action = 'transaction.exported' ORDER BY seq DESC LIMIT 1`,
      );
      assert.ok(!JSON.stringify(last[0]!.details).toLowerCase().includes('okafor'));
    });

    it('indexes transfers stored before the index in the background at start', async () => {
      await hub().db.query('UPDATE transactions SET name_tokens = NULL WHERE ref = $1', [refs.small]);
      await hub().db.query('UPDATE transactions SET names_indexed = false WHERE ref = $1', [refs.small]);
      assert.deepEqual(refsOf(await list('customer=okafor')), []);
      await hub().stop();
      await hub().start();
      await eventually(
        async () => (await list('customer=okafor')).body.total === 1,
        'the background indexing to reach the transfer',
      );
      const pending = await hub().db.query('SELECT ref FROM transactions WHERE NOT names_indexed');
      assert.equal(pending.length, 0);
    });

    it('keeps finding names after the master key rotates, old transfers and new', async () => {
      const key1 = hub().masterKey;
      const key2 = randomBytes(32);
      await hub().stop();
      hub().masterKey = key2;
      hub().previousMasterKeys = [key1];
      await hub().start();
      assert.deepEqual(refsOf(await list('customer=muller')), [refs.muller]);
      const res = await hub().request('POST', '/v1/transactions/initiate', {
        key: a.apiKey,
        body: named(mainRequest(b.vaspDid), 'Müller', 'Zoë'),
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(refsOf(await list('customer=muller')), [refs.muller, res.body.transactionRef].sort());
      if (backend === 'pglite') {
        // The embedded hub re-seals everything (the index's key too); then key 2 alone will do.
        await eventually(
          async () => (await hub().admin('GET', '/v1/admin/rekey')).body.state === 'done',
          'the background re-sealing to finish',
        );
        await hub().stop();
        hub().previousMasterKeys = [];
        await hub().start();
        assert.deepEqual(refsOf(await list('customer=zoe%20muller')), [res.body.transactionRef]);
      }
    });

    it('drops a transfer’s index entries when its personal data is erased', async () => {
      const erased = await hub().admin('POST', `/v1/admin/transactions/${refs.small}/erase-pii`, {
        reason: 'a data subject asked',
      });
      assert.ok(erased.status < 300, erased.text);
      const left = await hub().db.query(
        'SELECT 1 FROM transactions WHERE ref = $1 AND name_tokens IS NOT NULL',
        [refs.small],
      );
      assert.equal(left.length, 0);
      assert.deepEqual(refsOf(await list('customer=okafor')), []);
    });

    it('writes no searched name to the logs', () => {
      const logs = hub().logs.join('\n').toLowerCase();
      assert.match(logs, /\/v1\/transactions\?\[redacted\]/, 'the searches were logged, their query masked');
      for (const name of ['okafor', 'muller', 'smith', 'odon']) assert.ok(!logs.includes(name), name);
    });
  },
  { SMTP_URL: smtp.url, HUB_PUBLIC_URL: 'https://hub.example' },
);
