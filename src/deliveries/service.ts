/**
 * The delivery API's logic: a recipient's view of the webhooks owed to it, redelivery of a
 * FAILED one (same message id, fresh schedule), the operator's view of NOTIFY e-mails, and the
 * signed `ping` an organization sends itself to check its endpoint. Payloads are never shown:
 * they may carry (or lead to) personal data; the attempt log is what a recipient needs.
 */
import { type Actor, recordAudit } from '../audit/store.js';
import type { Database } from '../db/database.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { type EmailEvent, webhook } from './events.js';
import type { WebhookPreparer } from './prepare.js';
import type { Delivery, DeliveryQuery, Email, EmailQuery, TestEventResult } from './schemas.js';
import type { WebhookSender } from './sender.js';
import { newMessageId } from './signing.js';
import * as store from './store.js';

const DEFAULT_PAGE = 50;

export class DeliveryService {
  constructor(
    private readonly db: Database,
    private readonly preparer: WebhookPreparer,
    private readonly sender: WebhookSender,
    readonly smtpConfigured: boolean,
  ) {}

  async list(
    orgId: string,
    q: DeliveryQuery,
  ): Promise<{ deliveries: Delivery[]; nextCursor: string | null }> {
    const { page, nextCursor } = await this.page(
      {
        channel: q.channel ?? 'webhook',
        organizationId: orgId,
        transactionRef: q.transactionRef,
        status: q.status,
        event: q.event,
      },
      q,
    );
    const attempts = await store.attemptsOf(
      this.db,
      page.map((d) => d.id),
    );
    return { deliveries: page.map((d) => toDelivery(d, attempts.get(d.id) ?? [])), nextCursor };
  }

  async emails(
    q: EmailQuery,
  ): Promise<{ emails: Email[]; nextCursor: string | null; smtpConfigured: boolean }> {
    const { page, nextCursor } = await this.page(
      { channel: 'email', transactionRef: q.transactionRef, status: q.status },
      q,
    );
    const attempts = await store.attemptsOf(
      this.db,
      page.map((d) => d.id),
    );
    const emails = page.map((d) => toEmail(d, attempts.get(d.id) ?? []));
    return { emails, nextCursor, smtpConfigured: this.smtpConfigured };
  }

  /**
   * FAILED → PENDING, due now, attempts from zero, same message id. Only the recipient may ask (for a
   * TRP message, the member whose transfer it belongs to).
   */
  async redeliver(orgId: string, id: string): Promise<Delivery> {
    const channel = (await store.channelOf(this.db, id)) === 'trp' ? 'trp' : 'webhook';
    const updated = await this.requeueFailed(id, { channel, organizationId: orgId }, `org:${orgId}`);
    const attempts = await store.attemptsOf(this.db, [id]);
    return toDelivery(updated, attempts.get(id) ?? []);
  }

  /** The operator's redelivery of a FAILED NOTIFY e-mail (after an SMTP outage, say). */
  async redeliverEmail(id: string, actor: Actor): Promise<Email> {
    const updated = await this.requeueFailed(id, { channel: 'email' }, actor);
    const attempts = await store.attemptsOf(this.db, [id]);
    return toEmail(updated, attempts.get(id) ?? []);
  }

  private requeueFailed(id: string, scope: Parameters<typeof store.findForUpdate>[2], actor: Actor) {
    const what = scope.channel === 'email' ? 'e-mail' : 'delivery';
    return this.db.transaction(async (tx) => {
      await store.lockTransactionOf(tx, id);
      const d = await store.findForUpdate(tx, id, scope);
      if (!d) throw new AppError('NOT_FOUND', `The ${what} does not exist.`);
      if (d.status !== 'FAILED') {
        throw new AppError(
          'INVALID_STATE',
          `The ${what} is ${d.status}; only a FAILED one can be redelivered.`,
        );
      }
      const requeued = await store.requeue(tx, id);
      await recordAudit(tx, {
        actor,
        action: 'delivery.redelivered',
        subjectType: d.transactionRef ? 'transaction' : 'organization',
        subjectId: d.transactionRef ?? d.organizationId ?? '',
        details: { deliveryId: id, event: d.event, channel: scope.channel, messageId: d.messageId },
      });
      return requeued;
    });
  }

  /** Sends a signed `ping` to the caller's endpoint now, through the worker's own path. */
  async testEvent(orgId: string): Promise<TestEventResult> {
    const messageId = newMessageId();
    const payload = { type: 'ping' as const, organizationId: orgId, sentAt: new Date().toISOString() };
    const started = performance.now();
    const prepared = await this.preparer.prepare(webhook('ping', orgId, null, payload));
    if (!prepared.ok) {
      return {
        delivered: false,
        url: null,
        messageId,
        statusCode: null,
        latencyMs: Math.round(performance.now() - started),
        error: prepared.error,
      };
    }
    const r = await this.sender.send(prepared.url, prepared.body, messageId, prepared.secrets);
    return {
      delivered: r.ok,
      url: prepared.url,
      messageId,
      statusCode: r.statusCode,
      latencyMs: Math.round(r.latencyMs),
      error: r.error,
    };
  }

  private async page(
    filter: Omit<store.ListFilter, 'limit' | 'after'>,
    q: { limit?: string; cursor?: string },
  ): Promise<{ page: store.DeliveryRecord[]; nextCursor: string | null }> {
    const limit = q.limit === undefined ? DEFAULT_PAGE : Number(q.limit);
    const rows = await store.listDeliveries(this.db, {
      ...filter,
      after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { page, nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.id) : null };
  }
}

function toEmail(d: store.DeliveryRecord, attemptLog: store.AttemptRecord[]): Email {
  return { ...toDelivery(d, attemptLog), event: d.event as EmailEvent, to: d.emailTo ?? '' };
}

function toDelivery(d: store.DeliveryRecord, attemptLog: store.AttemptRecord[]): Delivery {
  return {
    id: d.id,
    messageId: d.messageId,
    channel: d.channel === 'trp' ? 'trp' : 'webhook',
    event: d.event,
    transactionRef: d.transactionRef,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastError: d.lastError,
    createdAt: d.createdAt,
    deliveredAt: d.deliveredAt,
    attemptLog,
  };
}
