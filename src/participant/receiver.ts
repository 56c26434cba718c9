/**
 * A reference webhook receiver for participants: serves POST /v1/notify/<event>, verifies the
 * Standard Webhooks signature on the raw body before parsing anything (401 otherwise),
 * decrypts BASIC's and TRP's personal data when it holds the private key, de-duplicates by
 * `webhook-id` (the hub retries with the same id) and answers 200 once the event was handled.
 * A handler that throws (or rejects) gets the hub a 500, and the hub's retry is handled again,
 * not waved through as a duplicate. What a VASP's own endpoint must do, small enough to read in
 * one sitting.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WEBHOOK_EVENT_NAMES } from '../deliveries/events.js';
import { escapeControls } from '../text/controls.js';
import { decryptPii, verifyWebhook } from './webhooks.js';

const EVENTS = new Set<string>(WEBHOOK_EVENT_NAMES);
const MAX_BODY = 1024 * 1024;

export interface ReceivedEvent {
  event: string;
  webhookId: string;
  payload: Record<string, any>;
  /** BASIC and TRP: the decrypted `ivms101_data.encryptedPii`; MAIN confirmed-data: `ivms101Data`. */
  pii?: unknown;
  duplicate: boolean;
}

export interface ReceiverOptions {
  /** Current `whsec_…` secret first; the previous one too while a rotation overlaps. */
  secrets: string[];
  /** PEM private key matching the public key registered with the hub (for BASIC and TRP). */
  privateKeyPem?: string;
  /** Handles an event; the hub gets 200 only after it returns (or its promise resolves). */
  onEvent?: (e: ReceivedEvent) => unknown;
  /** The default printer names the persons of decrypted personal data only with this set. */
  showPii?: boolean;
  /** How many webhook ids to remember for de-duplication. */
  remember?: number;
}

export function createReceiver(options: ReceiverOptions): Server {
  const seen = new Set<string>();
  // Ids whose handler is running: a second copy meanwhile (the hub gave up waiting and retried)
  // is asked to come back later rather than handled twice at once.
  const handling = new Set<string>();
  const remember = options.remember ?? 10_000;
  const onEvent =
    options.onEvent ??
    ((e: ReceivedEvent) => process.stdout.write(`${describeEvent(e, options.showPii ?? false)}\n`));

  return createServer((req, res) => {
    handle(req, res).catch(() => reply(res, 500, { status: 'error' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const match = /^\/v1\/notify\/([a-z-]+)$/.exec(req.url?.split('?')[0] ?? '');
    if (req.method !== 'POST' || !match || !EVENTS.has(match[1]!))
      return reply(res, 404, { status: 'not found' });
    const raw = await readBody(req);
    if (raw === undefined) return reply(res, 413, { status: 'too large' });
    let payload: Record<string, any>;
    try {
      payload = verifyWebhook(options.secrets, raw, req.headers) as Record<string, any>;
    } catch {
      return reply(res, 401, { status: 'invalid signature' });
    }
    const webhookId = String(req.headers['webhook-id']);
    const event = match[1]!;
    if (seen.has(webhookId)) {
      await onEvent({ event, webhookId, payload, duplicate: true });
      return reply(res, 200, { status: 'duplicate' });
    }
    if (handling.has(webhookId)) return reply(res, 409, { status: 'already being handled; retry later' });
    handling.add(webhookId);
    try {
      let pii: unknown = payload.ivms101Data;
      const encrypted = payload.ivms101_data?.encryptedPii;
      if (typeof encrypted === 'string' && options.privateKeyPem) {
        try {
          pii = await decryptPii(options.privateKeyPem, encrypted);
        } catch {
          return reply(res, 400, { status: 'cannot decrypt encryptedPii with this private key' });
        }
      }
      await onEvent({ event, webhookId, payload, pii, duplicate: false });
      // Only a handled event is remembered: after a failure, the hub's retry is handled afresh.
      seen.add(webhookId);
      if (seen.size > remember) seen.delete(seen.values().next().value as string);
      return reply(res, 200, { status: 'processed' });
    } finally {
      handling.delete(webhookId);
    }
  }
}

/**
 * One readable line per event, and a second when it carried personal data: how many persons it
 * names, or (with `showPii`, for a demo) their names. Terminals are logged; names are not by default.
 */
export function describeEvent(e: ReceivedEvent, showPii = false): string {
  // Counterparties choose some of these strings (a destination, a decline's description, names):
  // escaped, none can move the cursor, clear the terminal or start a line of its own.
  const p = e.payload;
  const time = new Date().toISOString().slice(11, 19);
  const head = `[${time}] ${e.event.padEnd(14)} ${p.transactionRef ?? ''}`;
  if (e.duplicate) return escapeControls(`${head} (duplicate ${e.webhookId}, ignored)`);
  let line = head;
  if (e.event === 'received') {
    const destination = p.ivms101_data?.transactionBlockchainInfo?.destination;
    line += ` ${p.protocol} ${p.transactionAmount} ${p.transactionAsset}${destination ? ` to ${destination}` : ''} from ${p.originatorVASPdid}`;
  } else if (e.event === 'declined') {
    line += ` by ${p.beneficiaryVASPdid}: ${p.reason?.category} (${p.reason?.description})`;
  } else if (e.event === 'tx-hash') {
    line += ` txHash ${p.txHash}`;
  } else if (e.event === 'confirmed-data') {
    line += ` ${p.status} from ${p.originatorVASPdid}`;
  }
  if (!e.pii) return escapeControls(line);
  const persons = showPii ? personNames(e.pii) : personCount(e.pii);
  return `${escapeControls(line)}\n           personal data: ${escapeControls(persons)}`;
}

function personCount(pii: any): string {
  const count = (persons: unknown) => (Array.isArray(persons) ? persons.length : 0);
  return (
    `originator ${count(pii.originator?.originatorPersons)} person(s), beneficiary ` +
    `${count(pii.beneficiary?.beneficiaryPersons)} person(s) (names hidden; --show-pii prints them)`
  );
}

function personNames(pii: any): string {
  const names = (persons: any[] | undefined) =>
    (persons ?? [])
      .map((p) => {
        const n = p.naturalPerson?.name ?? p.legalPerson?.name;
        const id = (Array.isArray(n) ? n[0] : n)?.nameIdentifier?.[0];
        return id
          ? [id.secondaryIdentifier, id.primaryIdentifier ?? id.legalPersonName].filter(Boolean).join(' ')
          : '?';
      })
      .join(', ');
  return `originator ${names(pii.originator?.originatorPersons)}; beneficiary ${names(pii.beneficiary?.beneficiaryPersons)}`;
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
