/**
 * Search and export at volume (SPEC §17; issue 35's targets): a fresh hub is seeded with
 * SEARCH_SEED transactions by parallel initiations through its API (10,000 at full scale), every
 * one with its customers' names; then, each the median of five, the list's first page with its
 * total, a short-reference search, a counterparty-name search over every row, a customer-name
 * search through the blind index, and the CSV export of every row: the time to its first byte
 * and to its last. Targets: 200 ms for each answer and for the export's first byte. Reported,
 * never asserted.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { freshDatabase } from '../lib/databases.js';
import { initiateBody, seed, startHub } from '../lib/hub.js';
import { round } from '../lib/measure.js';
import { SCALE } from '../lib/options.js';
import { stop } from '../lib/processes.js';
import { rows } from '../report.js';

const SEED = SCALE.name === 'full' ? 10_000 : SCALE.name === 'quick' ? 2_000 : 200;
const TARGET_MS = 200;
const FAMILIES = ['Lindqvist', 'Okafor', 'Rossi', 'Nakamura', 'García', 'Müller', 'Dubois', 'Kowalski'];

export async function search(receiverUrl: string): Promise<void> {
  const db = await freshDatabase();
  const hub = await startHub(db.env, false);
  const orgs = await seed(hub, receiverUrl);
  const key: string = orgs.originator.apiKey;
  const template = JSON.parse(initiateBody(orgs.beneficiary.organization.vaspDid));
  const pool = new Pool(hub.url, { connections: 50, pipelining: 1 });

  // One transfer carries a name no other has: the customer search's needle.
  const seeded = performance.now();
  let next = 0;
  let errors = 0;
  const refs: string[] = [];
  const worker = async () => {
    while (next < SEED) {
      const i = next++;
      const body = structuredClone(template);
      const name = body.pii.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0];
      name.primaryIdentifier = i === Math.floor(SEED / 2) ? 'Needleman' : FAMILIES[i % FAMILIES.length];
      name.secondaryIdentifier = `Customer ${randomUUID().slice(0, 8)}`;
      const res = await pool.request({
        method: 'POST',
        path: '/v1/transactions/initiate',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await res.body.json()) as { transactionRef?: string };
      if (res.statusCode !== 200 || !answer.transactionRef) errors++;
      else refs.push(answer.transactionRef);
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  const seedSeconds = (performance.now() - seeded) / 1000;

  const get = async (path: string) => {
    const started = performance.now();
    const res = await pool.request({ method: 'GET', path, headers: { 'x-api-key': key } });
    let first = 0;
    let bytes = 0;
    for await (const chunk of res.body) {
      if (first === 0) first = performance.now() - started;
      bytes += (chunk as Buffer).length;
    }
    return { status: res.statusCode, first, total: performance.now() - started, bytes };
  };
  const median = async (path: string) => {
    await get(path); // warm-up
    const runs: Awaited<ReturnType<typeof get>>[] = [];
    for (let i = 0; i < 5; i++) runs.push(await get(path));
    const failed = runs.filter((r) => r.status !== 200).length;
    const by = (k: 'first' | 'total') => runs.map((r) => r[k]).sort((a, b) => a - b)[2]!;
    return { first: by('first'), total: by('total'), failed, bytes: runs[0]!.bytes };
  };
  const verdict = (ms: number) => `target ≤ ${TARGET_MS} ms: ${ms <= TARGET_MS ? 'met' : '**missed**'}`;
  const measured = async (scenario: string, path: string, what: string) => {
    const m = await median(path);
    rows.push({
      scenario,
      value: round(m.total),
      unit: 'ms median of 5',
      errors: m.failed,
      note: `${what}; ${verdict(m.total)}`,
    });
  };

  const shortRef = refs[0]!.slice(0, 8);
  const note = `${SEED} transactions seeded (${errors} refused) in ${round(seedSeconds)} s`;
  await measured(`search: first page of ${SEED} (50 rows and the total)`, '/v1/transactions?limit=50', note);
  await measured(`search: short reference among ${SEED}`, `/v1/transactions?q=${shortRef}`, 'q=<8 hex>');
  await measured(
    `search: counterparty name matching all ${SEED}`,
    '/v1/transactions?q=bench%20beneficiary&limit=50',
    'q=<name>, the first 50 and the total',
  );
  await measured(
    `search: customer name among ${SEED}`,
    '/v1/transactions?customer=needleman',
    'customer=<name> through the blind index',
  );
  const csv = await median('/v1/transactions?format=csv');
  rows.push({
    scenario: `search: CSV export of ${SEED} rows, first byte`,
    value: round(csv.first),
    unit: 'ms median of 5',
    errors: csv.failed,
    note: verdict(csv.first),
  });
  rows.push({
    scenario: `search: CSV export of ${SEED} rows, last byte`,
    value: round(csv.total),
    unit: 'ms median of 5',
    errors: csv.failed,
    note: `${round(csv.bytes / 1024)} KiB streamed`,
  });
  await pool.close();
  await stop(hub.child);
}
