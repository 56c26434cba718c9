/**
 * Property-based fuzzing of every POST and PATCH route (SPEC §4, §13). The routes come from the
 * hub's own OpenAPI document, so a route added later is fuzzed without touching this file. Each
 * route gets a fresh world (a calling organization, a counterparty, transactions in several states
 * both ways, deliveries, e-mails, operator-managed organizations) and then a fixed set of extremes
 * (50,000 levels of nesting, strings at the 256 KiB limit, thousands of array elements, prototype
 * keys, NUL, lone surrogates, bidi overrides, bytes that are not UTF-8, empty bodies) and FUZZ_RUNS
 * generated requests: valid bodies (read off the route's schema, or test/support/requests.ts for
 * initiation), mutated ones, arbitrary JSON, raw text, odd content types, odd path ids, odd keys and
 * Idempotency-Keys. For every request:
 *   - the status is below 500 and the answer at most 64 KiB, with `x-content-type-options: nosniff`;
 *   - a 4xx is application/problem+json with a `code` and its `status`;
 *   - a 4xx changed no row of any table (every table of the schema: row count and each row's
 *     ctid/xmin, so an UPDATE shows too). The one allowed exception is by design: a refusal that
 *     depends on state (src/idempotency, REMEMBERED_REFUSALS) is recorded as its Idempotency-Key's
 *     first answer, one idempotency_keys row;
 *   - /healthz and /readyz still answer 200.
 * The delivery worker is off (HUB_WORKER=false) so that nothing else writes while a refusal is checked.
 *
 * Bounded and seeded: FUZZ_SEED (default 20261126), FUZZ_RUNS generated requests per route after
 * the extremes (default 60), at most 60 s per route, 20 s per request (a hang fails the property).
 * A failure prints the request (method, path, key, content type, body excerpt) and fast-check's
 * `seed` and `path`. Replay it on one route, on a fresh hub:
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path> FUZZ_ROUTE='POST /v1/transactions/initiate' \
 *     node --import tsx --test test/http/fuzz.test.ts
 * (the hub's state before the failing request differs a little from the first run's, since only
 * that route runs; the printed request itself is the surest reproduction).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { AppError, type ErrorCode } from '../../src/http/errors.js';
import { isRememberedRefusal } from '../../src/idempotency/index.js';
import { type ApiResponse, eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import {
  type Body,
  bodies,
  describeBody,
  extremeBodies,
  fromSchema,
  jsonBody,
  oddString,
  type SchemaHints,
} from '../support/fuzz.js';
import { Receiver } from '../support/receiver.js';
import { basicRequest, type Json, mainRequest, notifyRequest } from '../support/requests.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const REPLAY_PATH = process.env.FUZZ_PATH || undefined;
const ONLY_ROUTE = process.env.FUZZ_ROUTE || undefined;
const ROUTE_BUDGET_MS = 60_000;
const REQUEST_TIMEOUT_MS = 20_000;
const MAX_ANSWER_BYTES = 64 * 1024;

interface Route {
  method: 'POST' | 'PATCH';
  path: string;
  auth: 'operator' | 'organization' | 'public';
  /** The JSON request body's schema; undefined when the route takes no body. */
  body: Json | undefined;
  /** Whether it takes an Idempotency-Key. */
  idempotent: boolean;
}

/** Every POST and PATCH operation of the document, and which key it takes. */
function routesOf(doc: Json): Route[] {
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    for (const method of ['POST', 'PATCH'] as const) {
      const op = operations[method.toLowerCase()];
      if (!op) continue;
      // As the document says: `security: []` marks a route without a key (a claim link's, say).
      const open = Array.isArray(op.security) && op.security.length === 0;
      routes.push({
        method,
        path,
        auth: path.startsWith('/v1/admin/') ? 'operator' : open ? 'public' : 'organization',
        body: op.requestBody?.content?.['application/json']?.schema,
        idempotent: (op.parameters ?? []).some(
          (p: Json) => p.in === 'header' && p.name === 'idempotency-key',
        ),
      });
    }
  }
  return routes;
}

/** What one route's requests can point at: real ids of every kind, in several states. */
interface World {
  caller: OrgFixture;
  peer: OrgFixture;
  /** Organizations the operator routes act on (never the caller or peer, whose DIDs must stay put). */
  victims: OrgFixture[];
  readKey: string;
  refs: string[];
  webhookIds: string[];
  emailIds: string[];
  keyIds: string[];
  operatorIds: string[];
  /** Claim-link tokens of NOTIFY transactions and credentials-link tokens (SPEC §12), if the hub has them. */
  claimTokens: string[];
  pickupTokens: string[];
  applicationIds: string[];
}

/** The hub's single-use link tokens, which it derives from the master key (src/claims/tokens.ts). */
interface LinkTokens {
  claimToken(transactionRef: string): string;
  pickupToken(pickupId: string): string;
}

/**
 * The hub's own token derivation, so that claim and credentials routes meet real tokens. Imported
 * by a computed name and optional: a build without claim links still runs the suite.
 */
async function linkTokens(masterKey: Buffer): Promise<LinkTokens | undefined> {
  const specifier = '../../src/claims/tokens.js';
  try {
    const module = (await import(specifier)) as { LinkTokens?: new (key: Buffer) => LinkTokens };
    return module.LinkTokens && new module.LinkTokens(masterKey);
  } catch {
    return undefined;
  }
}

/** The ids of a table's rows, or none when this build has no such table. */
async function idsOf(h: TestHub, table: string): Promise<string[]> {
  const [found] = await h.db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    table,
  ]);
  if (!found?.present) return [];
  return (await h.db.query<{ id: string }>(`SELECT id::text AS id FROM ${table} ORDER BY 1 LIMIT 20`)).map(
    (r) => r.id,
  );
}

async function ok(pending: Promise<ApiResponse>): Promise<Json> {
  const res = await pending;
  assert.ok(res.status < 300, `setting up the fuzz world: ${res.status} ${res.text}`);
  return res.body;
}

async function makeWorld(h: TestHub, sink: string, pem: string): Promise<World> {
  // A publicKey each: BASIC encrypts the personal data to the beneficiary.
  const caller = await h.createOrg({ travelEndpoint: sink, publicKey: pem });
  const peer = await h.createOrg({ travelEndpoint: sink, publicKey: pem });
  const victims = [
    await h.createOrg({ travelEndpoint: sink }),
    await h.createOrg({ organizationType: 'verified' }),
  ];
  const issued = await ok(
    h.request('POST', '/v1/organizations/me/api-keys', { key: caller.apiKey, body: { scope: 'read' } }),
  );
  const initiate = async (from: OrgFixture, body: Json, acknowledged = false) => {
    const ref = (await ok(h.request('POST', '/v1/transactions/initiate', { key: from.apiKey, body })))
      .transactionRef as string;
    if (acknowledged) await h.acknowledgeReceived(ref);
    return ref;
  };
  const confirmed = async (from: OrgFixture, to: OrgFixture) => {
    const ref = await initiate(from, mainRequest(to.vaspDid), true);
    await ok(
      h.request('POST', '/v1/transactions/confirm', { key: from.apiKey, body: { transactionRef: ref } }),
    );
    return ref;
  };
  // NOTIFY both ways: the peer's claim link is one the caller can attach with.
  const announced = [
    await initiate(caller, notifyRequest(randomUUID())),
    await initiate(peer, notifyRequest(randomUUID())),
  ];
  // Both ways (the caller as originator and as beneficiary), in every state a member reaches.
  const refs = [
    ...announced,
    await initiate(caller, mainRequest(peer.vaspDid)),
    await initiate(caller, mainRequest(peer.vaspDid), true),
    await confirmed(caller, peer),
    await initiate(caller, basicRequest(peer.vaspDid)),
    await initiate(peer, mainRequest(caller.vaspDid), true),
    await initiate(peer, basicRequest(caller.vaspDid)),
    await confirmed(peer, caller),
  ];
  const declined = await confirmed(peer, caller);
  await ok(
    h.request('POST', '/v1/transactions/decline', {
      key: caller.apiKey,
      body: { transactionRef: declined, reason: { category: 'USER_REQUEST', description: 'fuzz' } },
    }),
  );
  refs.push(declined);
  const deliveries = await h.db.query<{ id: string; channel: string; organization_id: string | null }>(
    'SELECT id, channel, organization_id FROM deliveries WHERE transaction_ref = ANY($1::uuid[]) ORDER BY seq',
    [refs],
  );
  const webhookIds = deliveries.filter((d) => d.organization_id === caller.id).map((d) => d.id);
  const emailIds = deliveries.filter((d) => d.channel === 'email').map((d) => d.id);
  // One of each FAILED, so that a redelivery can succeed once.
  const failed = [webhookIds[0], emailIds[0]].filter((id) => id !== undefined);
  await h.db.query(`UPDATE deliveries SET status = 'FAILED' WHERE id = ANY($1::uuid[])`, [failed]);
  const keyIds = (
    await h.db.query<{ id: string }>('SELECT id FROM api_keys WHERE organization_id = $1', [caller.id])
  ).map((k) => k.id);
  const operator = await ok(
    h.admin('POST', '/v1/admin/operators', { name: `Fuzz ${randomUUID().slice(0, 8)}` }),
  );
  const tokens = await linkTokens(h.masterKey);
  return {
    caller,
    peer,
    victims,
    readKey: issued.apiKey,
    refs,
    webhookIds,
    emailIds,
    keyIds,
    operatorIds: [operator.operator.id],
    claimTokens: tokens ? announced.map((ref) => tokens.claimToken(ref)) : [],
    pickupTokens: tokens ? (await idsOf(h, 'credential_pickups')).map((id) => tokens.pickupToken(id)) : [],
    applicationIds: await idsOf(h, 'join_applications'),
  };
}

/** Real ids for the path parameter that follows `segment` (`/organizations/{id}`: organizations). */
function idsFor(world: World, segment: string | undefined): string[] {
  switch (segment) {
    case 'organizations':
      return world.victims.map((o) => o.id);
    case 'deliveries':
      return world.webhookIds;
    case 'emails':
      return world.emailIds;
    case 'transactions':
      return world.refs;
    case 'operators':
      return world.operatorIds;
    case 'api-keys':
      return world.keyIds;
    case 'claims':
      return world.claimTokens;
    case 'credentials':
      return world.pickupTokens;
    case 'applications':
      return world.applicationIds;
    default:
      return [...world.refs, ...world.victims.map((o) => o.id), ...world.webhookIds];
  }
}

/** Percent-encodes the UTF-8 of any string (a lone surrogate becomes U+FFFD, as on any wire). */
const percentEncoded = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

/** Path segments that are not ids: odd text, malformed escapes, overlong UTF-8, over 100 characters. */
const oddSegment = fc.oneof(
  oddString.filter((s) => s.length > 0).map(percentEncoded),
  fc.constantFrom(
    '%zz',
    '%',
    '%00',
    '%C0%80',
    '%ED%A0%80',
    '%FF',
    'x'.repeat(101),
    '5b0e7c3e-6c1e-4a55-9a57-0f4c1d2e3f40x',
    '%2e%2e',
    'a%2Fb',
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '1',
    '~',
    ';',
  ),
);

const ODD_IDS = ['%zz', 'x'.repeat(101), '%C0%80', 'not-a-uuid', '00000000-0000-0000-0000-000000000000'];

const isParam = (segment: string) => /^\{.+\}$/.test(segment);

function pathArb(route: Route, world: World): fc.Arbitrary<string> {
  const parts = route.path.split('/');
  const segments = parts.map((part, i) => {
    if (!isParam(part)) return fc.constant(part);
    const real = idsFor(world, parts[i - 1]);
    return fc.oneof(
      { weight: 6, arbitrary: real.length > 0 ? fc.constantFrom(...real) : fc.uuid() },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: oddSegment },
    );
  });
  return fc.tuple(...segments).map((s) => s.join('/'));
}

interface Key {
  kind: 'own' | 'none' | 'garbage' | 'crossed' | 'read';
  value: string | undefined;
}

/** The key a route is meant to be called with: the operator's, the caller's, or none. */
const ownKey = (route: Route, world: World, adminKey: string): Key => ({
  kind: 'own',
  value:
    route.auth === 'operator' ? adminKey : route.auth === 'organization' ? world.caller.apiKey : undefined,
});

function keyArb(route: Route, world: World, adminKey: string): fc.Arbitrary<Key> {
  const garbage = fc.constantFrom(
    '',
    ' ',
    `trh_${'A'.repeat(43)}`,
    `trh_op_${'A'.repeat(43)}`,
    'x'.repeat(5_000),
    'Bearer abc',
    '\u00e9\u00e9',
    `${world.caller.apiKey} `,
    world.caller.apiKey.toUpperCase(),
  );
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant(ownKey(route, world, adminKey)) },
    { weight: 1, arbitrary: fc.constant<Key>({ kind: 'none', value: undefined }) },
    { weight: 1, arbitrary: garbage.map((value): Key => ({ kind: 'garbage', value })) },
    {
      weight: 1,
      arbitrary: fc.constant<Key>({
        kind: 'crossed',
        value: route.auth === 'operator' ? world.caller.apiKey : adminKey,
      }),
    },
    { weight: 1, arbitrary: fc.constant<Key>({ kind: 'read', value: world.readKey }) },
  );
}

const idempotencyKeyArb = fc.option(
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3') }, // repeats: replays and conflicts
    { weight: 2, arbitrary: fc.uuid() },
    {
      weight: 1,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
        minLength: 1,
        maxLength: 300,
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'a b', '\u00e9', 'x'.repeat(256)) },
  ),
  { freq: 2 },
);

/** Valid bodies for a route: its schema's, with hints for what only the hub knows. */
function validArb(route: Route, world: World, doc: Json, sink: string, pem: string): fc.Arbitrary<unknown> {
  if (!route.body) return fc.constant(undefined);
  const did = world.peer.vaspDid;
  if (route.method === 'POST' && route.path === '/v1/transactions/initiate') {
    const person = fc.stringMatching(/^Zyx[a-f0-9]{12}$/);
    return fc.oneof(
      person.map((n) => mainRequest(did, n)),
      person.map((n) => basicRequest(did, n)),
      fc.tuple(fc.uuid(), person).map(([id, n]) => notifyRequest(id, n)),
      person.map((n) => ({ ...mainRequest(did, n), beneficiaryVASPid: world.peer.id })),
    );
  }
  const ids = [...world.refs, ...world.victims.map((o) => o.id)];
  const hints: SchemaHints = {
    doc,
    byName: {
      transactionRef: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...world.refs) }, fc.uuid()),
      name: fc.stringMatching(/^[A-Z][A-Za-z0-9 .&'-]{0,30}[a-z0-9]$/),
      vaspDid: fc.stringMatching(/^[a-z0-9]{6,12}$/).map((s) => `did:web:fuzz-${s}.example`),
      travelEndpoint: fc.constantFrom(null, sink, `${sink}/travel`),
      publicKey: fc.constantFrom(null, pem),
      contactEmail: fc.constantFrom(null, 'compliance@fuzz.example'),
      notificationEmail: fc.constant('compliance@fuzz.example'),
      txHash: fc.stringMatching(/^0x[0-9a-f]{64}$/),
      description: fc.string({ minLength: 1, maxLength: 120 }),
    },
    byRef: {},
    uuid: fc.oneof(fc.constantFrom(...ids), fc.uuid()),
  };
  return fromSchema(route.body, hints);
}

interface Shot {
  method: string;
  path: string;
  key: Key;
  idempotencyKey: string | null;
  body: Body;
}

const describeShot = (s: Shot) =>
  `${s.method} ${s.path.length > 200 ? `${s.path.slice(0, 200)}…` : s.path} (key: ${s.key.kind}; ` +
  `idempotency-key: ${JSON.stringify(s.idempotencyKey)}; ${describeBody(s.body)})`;

/** A shot that fast-check prints as its description, not as a 250 KiB dump. */
const printable = (s: Shot): Shot => Object.assign(s, { [fc.toStringMethod]: () => describeShot(s) });

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

async function send(h: TestHub, shot: Shot): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (shot.key.value !== undefined) headers['x-api-key'] = shot.key.value;
  if (shot.idempotencyKey !== null) headers['idempotency-key'] = shot.idempotencyKey;
  if (shot.body.contentType !== undefined) headers['content-type'] = shot.body.contentType;
  const res = await fetch(`${h.url}${shot.path}`, {
    method: shot.method,
    headers,
    // A copy on an ArrayBuffer of its own, which is what fetch's types ask for.
    body:
      typeof shot.body.payload === 'string'
        ? shot.body.payload
        : shot.body.payload && new Uint8Array(shot.body.payload),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Per table: row count and a digest of every row's version (ctid, xmin), so an UPDATE shows too. */
type Digest = Map<string, { rows: number; digest: string }>;

async function digestQuery(h: TestHub): Promise<string> {
  const tables = (
    await h.db.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables
        WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1`,
    )
  ).map((t) => t.name);
  for (const t of ['transactions', 'transaction_history', 'deliveries', 'organizations', 'api_keys']) {
    assert.ok(tables.includes(t), `table ${t} is watched`);
  }
  return tables
    .map(
      (t) =>
        `SELECT '${t}' AS name, count(*)::int AS rows,
           coalesce(md5(string_agg(ctid::text || ':' || xmin::text, ',' ORDER BY ctid)), '') AS digest
         FROM "${t}"`,
    )
    .join(' UNION ALL ');
}

async function digest(h: TestHub, sql: string): Promise<Digest> {
  const rows = await h.db.query<{ name: string; rows: number; digest: string }>(sql);
  return new Map(rows.map((r) => [r.name, { rows: r.rows, digest: r.digest }]));
}

/**
 * Tables whose rows changed, but for the one Idempotency-Key record a remembered refusal leaves,
 * and the failure count a refused sign-in keeps on purpose (the throttle, SPEC §17).
 */
function written(
  before: Digest,
  after: Digest,
  idempotencyRecordAllowed: boolean,
  signInFailure: boolean,
): string[] {
  const changed: string[] = [];
  for (const [name, b] of before) {
    const a = after.get(name)!;
    if (a.digest === b.digest && a.rows === b.rows) continue;
    if (name === 'idempotency_keys' && idempotencyRecordAllowed && a.rows === b.rows + 1) continue;
    if (name === 'sign_in_throttle' && signInFailure) continue;
    changed.push(`${name} (${b.rows} → ${a.rows} rows)`);
  }
  return changed;
}

async function assertHealthy(h: TestHub, after: string): Promise<void> {
  for (const path of ['/healthz', '/readyz']) {
    const res = await fetch(`${h.url}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await res.arrayBuffer();
    assert.equal(res.status, 200, `${path} answered ${res.status} after ${after}`);
  }
}

/** The properties every answer keeps (see the module comment). */
async function check(h: TestHub, shot: Shot, digestSql: string): Promise<void> {
  const before = await digest(h, digestSql);
  const answer = await send(h, shot);
  const text = answer.bytes.toString('utf8');
  const where = `${describeShot(shot)} → ${answer.status} ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
  assert.ok(answer.status < 500, `a 5xx: ${where}`);
  assert.ok(answer.bytes.length <= MAX_ANSWER_BYTES, `an answer of ${answer.bytes.length} bytes: ${where}`);
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', `no nosniff header: ${where}`);
  if (answer.status >= 400) {
    assert.match(
      answer.headers.get('content-type') ?? '',
      /^application\/problem\+json/,
      `not a problem: ${where}`,
    );
    let problem: Json;
    try {
      problem = JSON.parse(text);
    } catch {
      assert.fail(`a problem that is not JSON: ${where}`);
    }
    assert.equal(typeof problem.code, 'string', `a problem without a code: ${where}`);
    assert.equal(problem.status, answer.status, `a problem with another status: ${where}`);
    const remembered =
      shot.idempotencyKey !== null && isRememberedRefusal(new AppError(problem.code as ErrorCode, ''));
    const signInFailure =
      shot.method === 'POST' &&
      shot.path === '/v1/sessions' &&
      (answer.status === 401 || answer.status === 429);
    const changed = written(before, await digest(h, digestSql), remembered, signInFailure);
    assert.deepEqual(changed, [], `a refused request wrote to ${changed.join(', ')}: ${where}`);
  }
  await assertHealthy(h, where);
}

async function fuzzRoute(
  h: TestHub,
  route: Route,
  doc: Json,
  sink: string,
  digestSql: string,
): Promise<void> {
  const pem = generateParticipantKeyPair().publicKeyPem;
  const world = await makeWorld(h, sink, pem);
  const valid = validArb(route, world, doc, sink, pem);
  const shots = fc
    .record({
      method: fc.constant(route.method),
      path: pathArb(route, world),
      key: keyArb(route, world, h.adminKey),
      idempotencyKey: route.idempotent ? idempotencyKeyArb : fc.constant(null),
      body: bodies(valid),
    })
    .map(printable);
  // The extremes, each around one valid body, sent with the route's own key to a real id.
  const [sample] = fc.sample(valid, { seed: SEED, numRuns: 1 });
  const own = ownKey(route, world, h.adminKey);
  const parts = route.path.split('/');
  const path = parts
    .map((part, i) =>
      isParam(part) ? (idsFor(world, parts[i - 1])[0] ?? '00000000-0000-4000-8000-000000000000') : part,
    )
    .join('/');
  const shot = (body: Body, at = path): [Shot] => [
    printable({ method: route.method, path: at, key: own, idempotencyKey: null, body }),
  ];
  const examples = [
    ...extremeBodies(sample).map((body) => shot(body)),
    // Ids that are not ids: a malformed escape, over 100 characters, overlong UTF-8, not a uuid.
    ...(route.path.includes('{') ? ODD_IDS : []).map((id) =>
      shot(jsonBody('valid', sample), route.path.replace(/\{[^}]+\}/g, id)),
    ),
  ];
  await fc.assert(
    fc.asyncProperty(shots, (shot) => check(h, shot, digestSql)),
    {
      seed: SEED,
      path: REPLAY_PATH,
      numRuns: examples.length + RUNS,
      examples,
      includeErrorInReport: true,
      plugins: [fc.timeout(REQUEST_TIMEOUT_MS + 10_000), fc.interruptAfterTimeLimit(ROUTE_BUDGET_MS)],
    },
  );
}

eachBackend(
  'fuzzing every POST and PATCH route',
  (hub) => {
    let sink: Receiver;
    before(async () => {
      sink = await Receiver.start();
    });
    after(async () => {
      await sink.close();
    });

    it('answers every request below 500, within 64 KiB, as a problem when refused, writing nothing then', async (t) => {
      const doc = (await hub().request('GET', '/openapi.json')).body as Json;
      const routes = routesOf(doc);
      const names = routes.map((r) => `${r.method} ${r.path}`);
      for (const known of [
        'POST /v1/transactions/initiate',
        'PATCH /v1/organizations/me',
        'POST /v1/admin/organizations',
      ]) {
        assert.ok(names.includes(known), `the document lists ${known}`);
      }
      const digestSql = await digestQuery(hub());
      for (const route of routes) {
        const name = `${route.method} ${route.path}`;
        if (ONLY_ROUTE && name !== ONLY_ROUTE) continue;
        await t.test(name, () => fuzzRoute(hub(), route, doc, sink.url, digestSql));
      }
    });

    it('stays healthy and logs no unhandled error', async () => {
      await assertHealthy(hub(), 'the fuzzing');
      const unhandled = hub()
        .allLogs()
        .split('\n')
        .filter((line) => line.includes('unhandled error'));
      assert.deepEqual(
        unhandled.map((l) => l.slice(0, 2_000)),
        [],
      );
    });
  },
  { HUB_WORKER: 'false' },
);
