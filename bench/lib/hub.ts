/**
 * The hub under test: started as `npm start` starts it (the bundle's `serve`), with the settings
 * a benchmark needs (no rate limit, warnings only, private webhook targets allowed), and seeded
 * through its own admin API. `entry` picks the build: this checkout's, or the regression
 * guard's other checkout.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { mainRequest } from '../../test/support/requests.js';
import { HUB_ENTRY, HUB_NODE_ARGS } from './options.js';
import { spawnReady } from './processes.js';

const ADMIN_KEY = `trh_admin_${randomBytes(24).toString('base64url')}`;
const MASTER_KEY = randomBytes(32).toString('base64');

export interface Hub {
  child: ChildProcess;
  url: string;
  /** From spawning the process to the first 200 from /readyz. */
  readyMs: number;
}

export async function startHub(
  dbEnv: Record<string, string>,
  worker: boolean,
  entry = HUB_ENTRY,
): Promise<Hub> {
  const started = performance.now();
  const { child, match } = await spawnReady(
    [...HUB_NODE_ARGS, entry, 'serve'],
    {
      ...dbEnv,
      PORT: '0',
      HUB_ADMIN_KEY: ADMIN_KEY,
      HUB_MASTER_KEY: MASTER_KEY,
      HUB_RATE_LIMIT: '0',
      HUB_LOG_LEVEL: 'warn',
      HUB_ALLOW_PRIVATE_ENDPOINTS: 'true',
      HUB_WORKER: String(worker),
    },
    /listening on (http:\/\/[0-9.:]+)/,
  );
  const url = match[1]!;
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, url, readyMs: performance.now() - started };
}

async function api(hub: Hub, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${hub.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An originator and a beneficiary (with a participant key), both sending webhooks to the receiver. */
export async function seed(hub: Hub, receiverUrl: string) {
  const suffix = randomBytes(4).toString('hex');
  const originator = await api(hub, 'POST', '/v1/admin/organizations', ADMIN_KEY, {
    name: 'Bench originator',
    vaspDid: `did:web:orig-${suffix}.bench`,
    travelEndpoint: receiverUrl,
  });
  const beneficiary = await api(hub, 'POST', '/v1/admin/organizations', ADMIN_KEY, {
    name: 'Bench beneficiary',
    vaspDid: `did:web:bene-${suffix}.bench`,
    travelEndpoint: receiverUrl,
    publicKey: generateParticipantKeyPair().publicKeyPem,
  });
  return { originator, beneficiary };
}

/** One more organization receiving webhooks at `travelEndpoint`, with a participant key (a beneficiary). */
export async function addOrganization(hub: Hub, name: string, travelEndpoint: string) {
  const suffix = randomBytes(4).toString('hex');
  return api(hub, 'POST', '/v1/admin/organizations', ADMIN_KEY, {
    name,
    vaspDid: `did:web:${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${suffix}.bench`,
    travelEndpoint,
    publicKey: generateParticipantKeyPair().publicKeyPem,
  });
}

/**
 * The same initiation for every request: the interface document's MAIN sample with a second
 * originator person (a joint account) and both sides' account numbers, about 2 KB, so that
 * parsing, validation, the IVMS101 checks and sealing work on a realistic message.
 */
export function initiateBody(beneficiaryDid: string): string {
  const body = mainRequest(beneficiaryDid);
  const persons = body.pii.originator.originatorPersons;
  const second = structuredClone(persons[0]);
  second.naturalPerson.name[0].nameIdentifier[0].secondaryIdentifier = 'Second Holder';
  persons.push(second);
  const accounts = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => `0x${String(from + i).repeat(40)}`);
  body.pii.originator.accountNumber = accounts(8, 1);
  body.pii.beneficiary.accountNumber = accounts(5, 1);
  return JSON.stringify(body);
}
