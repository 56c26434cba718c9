/**
 * The TRP bridge's outbound half (SPEC §16): the worker hands it the outbox's TRP messages and it
 * builds each request at send time (the peer's URL, the headers, the IVMS101 data opened from the
 * sealed transaction, our callbacks), sends it over mutual TLS, and reads the answer.
 *
 * TLS: the hub's certificate is its client certificate; peers' servers are trusted by the system's
 * authorities and HUB_TRP_TLS_CA. Unless private targets are allowed, names resolve through
 * `guardedLookup` and IP literals are checked before connecting (the webhooks' SSRF policy).
 * Redirects are not followed. Any 2xx is delivered; an answer to an inquiry must be a valid
 * resolution (else the attempt failed, and is retried under the same request-identifier, which
 * a peer recognizes as the same transfer). What a peer answered never reaches the logs.
 *
 * A send cannot hold a worker's slot for long (SPEC §13): one deadline covers the whole request,
 * from connecting to the answer's last byte (a peer that answers 200 and then trickles a byte
 * every few seconds is cut off like one that never answers), and an answer longer than 64 KiB is
 * cut off where it passes that. With the address check's own 5 s that stays well inside the
 * worker's 30 s lease. The worker's stop ends the sends still in flight (abortAll).
 */
import { rootCertificates } from 'node:tls';
import type { Agent } from 'undici';
import type { TrpConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { TrpMessage } from '../deliveries/events.js';
import type { DeliveryHooks } from '../deliveries/hooks.js';
import { describeError, SEND_TIMEOUT_MS } from '../deliveries/sender.js';
import { checkWebhookTarget, guardedLookup } from '../deliveries/ssrf.js';
import type { SendResult, TrpSender } from '../deliveries/types.js';
import { render } from '../ivms101/message.js';
import type { AssetTable } from '../transactions/assets.js';
import * as transactions from '../transactions/store.js';
import { toSmallestUnits, toWholeUnitsNumber } from './amount.js';
import type { TrpCallbacks } from './callbacks.js';
import { trpRequestHeaders } from './headers.js';
import {
  parseResolution,
  TRP_DISCOVERY_PATH,
  TRP_HEADER,
  TRP_VERSION,
  TrpIdentity,
  type TrpInquiryOut,
  type TrpResolutionResult,
  trpSchemaProblems,
} from './messages.js';
import * as peers from './peer-store.js';
import * as store from './store.js';

const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'travel-rule-hub-trp';
/** The whole of one request (connection, headers, answer), in milliseconds. */
export const TRP_SEND_DEADLINE_MS = SEND_TIMEOUT_MS;
const SHUT_DOWN = 'hub shut down before the answer came';

type Request = {
  url: string;
  method: 'POST' | 'GET';
  requestIdentifier: string;
  /** The version the request is sent in; `remembered`, what the peer spoke before (if known). */
  apiVersion: string;
  remembered: string | null;
  body?: unknown;
};
type Built = { ok: true; request: Request } | { ok: false; error: string };

export interface TrpSenderOptions {
  db: Database;
  config: TrpConfig;
  allowPrivate: boolean;
  assets: AssetTable;
  hooks: Pick<DeliveryHooks, 'readPii' | 'readReason'>;
  callbacks: TrpCallbacks;
}

export class TrpPeerSender implements TrpSender {
  private agent: Promise<Agent> | undefined;
  /** The sends in flight, each ended by its deadline or by abortAll. */
  private readonly running = new Set<AbortController>();
  private aborted = false;

  constructor(private readonly o: TrpSenderOptions & { deadlineMs?: number }) {}

  async send(m: TrpMessage): Promise<SendResult> {
    const started = performance.now();
    const failed = (error: string, statusCode: number | null = null): SendResult => ({
      ok: false,
      statusCode,
      latencyMs: performance.now() - started,
      error,
    });
    let built: Built;
    try {
      built = await this.build(m);
    } catch (err) {
      return failed(`could not build the TRP message: ${describeError(err)}`);
    }
    if (!built.ok) return failed(built.error);
    const { request } = built;
    const target = await checkWebhookTarget(request.url, { allowPrivate: this.o.allowPrivate });
    if (!target.ok) return failed(`target refused: ${target.reason}`);

    if (this.aborted) return failed(SHUT_DOWN);
    const deadlineMs = this.o.deadlineMs ?? TRP_SEND_DEADLINE_MS;
    const controller = new AbortController();
    const deadline = setTimeout(
      () => controller.abort(new DOMException('the peer did not answer in time', 'TimeoutError')),
      deadlineMs,
    );
    this.running.add(controller);
    let status: number;
    let text: string;
    let cut = false;
    try {
      ({ status, text, cut } = await this.exchange(request, request.apiVersion, controller.signal));
      // A peer that does not speak our version refuses the inquiry with 400 before taking it: once,
      // the version it spoke before, or 3.1.0 (TRISA's library and Envoy take nothing newer).
      const fallback = m.event === 'trp-inquiry' && status === 400 ? fallbackVersion(request) : undefined;
      if (fallback !== undefined) {
        ({ status, text, cut } = await this.exchange(request, fallback, controller.signal));
        if (status !== 400) request.apiVersion = fallback;
      }
    } catch (err) {
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      return failed(
        this.aborted && !(reason instanceof DOMException) ? SHUT_DOWN : describeError(reason, deadlineMs),
      );
    } finally {
      clearTimeout(deadline);
      this.running.delete(controller);
    }
    if (m.event === 'trp-inquiry' && status >= 200 && status < 300) {
      // What worked is what this transfer speaks from now on, and what the peer is asked in next time.
      await peers.rememberVersion(this.o.db, m.transactionRef, request.apiVersion);
    }
    const latencyMs = performance.now() - started;
    if (m.event === 'trp-identity' && (status < 200 || status >= 300)) {
      // /identity is optional for peers: one that does not serve it has nothing more to tell, and
      // the transfer's other messages, queued in order behind this one, must not wait for it.
      return { ok: true, statusCode: status, latencyMs, error: null, answer: null };
    }
    if (m.event === 'trp-inquiry' && isRefusal(status)) {
      // The peer refused the inquiry itself (unknown travel address, invalid inquiry): sending it
      // again changes nothing, so the transfer ends as declined.
      const answer: PeerAnswer = { kind: 'refused', status };
      return { ok: true, statusCode: status, latencyMs, error: null, answer };
    }
    if (status < 200 || status >= 300)
      return { ok: false, statusCode: status, latencyMs, error: `HTTP ${status}` };
    if (cut && m.event === 'trp-inquiry') {
      return {
        ok: false,
        statusCode: status,
        latencyMs,
        error: 'the answer to the inquiry is longer than 64 KiB',
      };
    }
    const answer = this.readAnswer(m, cut ? '' : text);
    if ('error' in answer) return { ok: false, statusCode: status, latencyMs, error: answer.error };
    return { ok: true, statusCode: status, latencyMs, error: null, answer: answer.value };
  }

  /** One HTTP exchange with the peer: the status and up to 64 KiB of the answer. */
  private async exchange(request: Request, apiVersion: string, signal: AbortSignal) {
    const agent = await this.load();
    const url = new URL(request.url);
    const res = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: request.method,
      signal,
      headers: {
        'user-agent': USER_AGENT,
        ...(request.method === 'GET'
          ? {
              accept: 'application/json',
              [TRP_HEADER.apiVersion]: apiVersion,
              [TRP_HEADER.requestIdentifier]: request.requestIdentifier,
            }
          : trpRequestHeaders({ requestIdentifier: request.requestIdentifier, apiVersion })),
      },
      body: request.body === undefined ? null : JSON.stringify(request.body),
    });
    return { status: res.statusCode, ...(await readCapped(res.body)) };
  }

  /** Ends every send in flight now (the worker stops): each fails, and is retried later. */
  async abortAll(): Promise<void> {
    this.aborted = true;
    for (const controller of this.running) controller.abort(new Error(SHUT_DOWN));
    this.running.clear();
  }

  async close(): Promise<void> {
    const agent = await this.agent?.catch(() => undefined);
    await agent?.close();
  }

  /** The request a message becomes, read from the transaction and the transfer as they are now. */
  private async build(m: TrpMessage): Promise<Built> {
    const ref = m.transactionRef;
    const [t, transfer] = await Promise.all([
      transactions.findTransaction(this.o.db, ref),
      store.findTransfer(this.o.db, ref),
    ]);
    if (!t || !transfer) return { ok: false, error: 'the TRP transfer no longer exists' };
    const callbacks = this.o.callbacks;
    const peer = await peers.findPeer(this.o.db, transfer.peerHost);
    if (peer?.blocked) return { ok: false, error: 'the operator blocked this TRP peer' };
    // What the transfer speaks (inbound: the peer's inquiry's version), else what the peer spoke last.
    const base = {
      requestIdentifier: transfer.requestIdentifier,
      apiVersion: transfer.apiVersion ?? peer?.apiVersion ?? TRP_VERSION,
      remembered: peer?.apiVersion ?? null,
    };
    switch (m.event) {
      case 'trp-inquiry': {
        const info = this.o.assets.get(t.asset.toUpperCase());
        if (info?.dti === undefined && info?.slip0044 === undefined) {
          return { ok: false, error: `${t.asset} has no TRP identifier in the asset table` };
        }
        // IVMS101 2020 with the standard's names, as TRP peers' tooling reads it (SPEC §18); the
        // member's own VASP entry is filled in from the directory unless its customer data named one.
        const pii = render(await this.o.hooks.readPii(ref), 'trp');
        const body: TrpInquiryOut = {
          asset: info.dti !== undefined ? { dti: info.dti } : { slip0044: info.slip0044! },
          // The peer's own encoding where the operator set one (TRISA and Envoy read a JSON number in
          // whole units), else the hub's default: a digit string in the smallest unit (docs/trp.md).
          amount:
            peer?.amountEncoding === 'whole-units-number'
              ? toWholeUnitsNumber(t.amount)
              : toSmallestUnits(t.amount, info.decimals),
          callback: callbacks.url('resolutions', ref),
          IVMS101: pii as TrpInquiryOut['IVMS101'],
        };
        return { ok: true, request: { ...base, url: transfer.inquiryUrl, method: 'POST', body } };
      }
      case 'trp-resolution': {
        if (!transfer.peerCallback) return { ok: false, error: 'the peer gave no callback' };
        let body: unknown;
        if (m.payload.decision === 'approved') {
          if (t.destination === null)
            return { ok: false, error: 'the transfer has no address to approve with' };
          body = { approved: { address: t.destination, callback: callbacks.url('confirmations', ref) } };
        } else {
          body = { rejected: rejection(t.status, await this.o.hooks.readReason(ref)) };
        }
        return { ok: true, request: { ...base, url: transfer.peerCallback, method: 'POST', body } };
      }
      case 'trp-confirmation': {
        if (!transfer.peerCallback) return { ok: false, error: 'the peer gave no callback' };
        const body =
          'txid' in m.payload
            ? { txid: m.payload.txid }
            : { canceled: cancellation(t.status, await this.o.hooks.readReason(ref)) };
        return { ok: true, request: { ...base, url: transfer.peerCallback, method: 'POST', body } };
      }
      case 'trp-identity': {
        // At the root of the peer's host: the one its inquiry came from (inbound), or the travel address's.
        const at = transfer.inbound ? transfer.peerCallback : transfer.inquiryUrl;
        if (!at) return { ok: false, error: 'the peer gave no callback' };
        const url = new URL(TRP_DISCOVERY_PATH.identity, at).href;
        return { ok: true, request: { ...base, url, method: 'GET' } };
      }
    }
  }

  /** What a delivered message's answer means, or why it is not an answer we can take. */
  private readAnswer(m: TrpMessage, text: string): { value: unknown } | { error: string } {
    if (m.event !== 'trp-inquiry' && m.event !== 'trp-identity') return { value: null };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return m.event === 'trp-identity'
        ? { value: null }
        : { error: 'the peer answered the inquiry without JSON' };
    }
    if (m.event === 'trp-identity') {
      return { value: trpSchemaProblems(TrpIdentity, json).length === 0 ? json : null };
    }
    const resolution = parseResolution(json, { allowHttp: this.o.allowPrivate });
    if (!resolution.ok) return { error: 'the peer answered the inquiry with an invalid resolution' };
    const problem = this.o.callbacks.approvalProblem(resolution.value);
    if (problem) return { error: `the peer's approval callback ${problem.message}` };
    return { value: resolution.value };
  }

  private load(): Promise<Agent> {
    this.agent ??= import('undici').then(
      ({ default: { Agent } }) =>
        new Agent({
          keepAliveTimeout: 10_000,
          headersTimeout: SEND_TIMEOUT_MS,
          bodyTimeout: SEND_TIMEOUT_MS,
          connect: {
            timeout: SEND_TIMEOUT_MS,
            cert: this.o.config.cert,
            key: this.o.config.key,
            ca: this.o.config.ca === undefined ? undefined : [...rootCertificates, this.o.config.ca],
            ...(this.o.allowPrivate ? {} : { lookup: guardedLookup }),
          },
        }),
    );
    return this.agent;
  }
}

/** What an answer to an inquiry can be: a resolution, or a refusal of the inquiry itself. */
export type PeerAnswer = TrpResolutionResult | { kind: 'refused'; status: number };

/** TRP's version before 3.2 (TRISA's library accepts exactly it; Envoy nothing from 3.2.0 on). */
export const FALLBACK_VERSION = '3.1.0';

/** The version to try once after a 400: the peer's remembered one, else 3.1.0; none if that was tried. */
function fallbackVersion(r: Request): string | undefined {
  if (r.remembered !== null && r.remembered !== r.apiVersion) return r.remembered;
  return r.apiVersion === FALLBACK_VERSION ? undefined : FALLBACK_VERSION;
}

/** A 4xx that will not change on a retry (not a timeout, a conflict of timing or a rate limit). */
function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && ![408, 409, 425, 429].includes(status);
}

/** A rejection's text: the member's decline description, or why the transfer ended undecided. */
function rejection(status: string, reason: unknown): string {
  const description = (reason as { description?: unknown } | undefined)?.description;
  if (typeof description === 'string' && description !== '') return description;
  return status === 'EXPIRED' ? 'The beneficiary did not decide in time.' : 'Rejected by the beneficiary.';
}

/** A cancellation's text: the originator's reason, if it gave one, or that the transfer expired. */
function cancellation(status: string, reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return reason;
  return status === 'EXPIRED'
    ? 'The transfer expired before it was approved.'
    : 'Cancelled by the originator.';
}

/** The answer's text, up to 64 KiB; a longer one is cut off there and its connection closed. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
): Promise<{ text: string; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      return { text: '', cut: true };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}
