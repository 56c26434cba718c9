/**
 * The mailer: sends the outbox's e-mails (email-texts.ts composes them) over SMTP. "Accepted by
 * SMTP" is the delivery's success; refusals and connection errors are retried on the webhook schedule.
 * The message's Message-ID is derived from the outbox message id, so a repeat after a crash is
 * recognisable as the same message.
 */
import type { Transporter } from 'nodemailer';
import { composeEmail, type EmailLinks } from './email-texts.js';
import type { EmailMessage } from './events.js';
import type { SendResult } from './types.js';

/**
 * The longest one SMTP session may take. Its per-wait timeouts (10 s) alone do not bound it: a
 * server that answers each of a session's six or so steps just in time would hold the message
 * past the worker's 30 s lease, another claim would send it again, and so on every lease.
 */
export const SEND_DEADLINE_MS = 20_000;

export class NotifyMailer {
  private transporter: Promise<Transporter> | undefined;
  private readonly from: string;
  private shuttingDown = false;
  /** The sessions in flight, each with its own controller (AbortSignal.any leaks on Node 20). */
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly smtpUrl: string,
    private readonly opts: { links: () => EmailLinks; timeoutMs?: number; deadlineMs?: number },
  ) {
    this.from = `Travel Rule Hub <no-reply@${senderDomain(opts.links().hub)}>`;
  }

  /** nodemailer (a large module) is loaded with the first e-mail, not at every start. */
  private transport(): Promise<Transporter> {
    const timeout = this.opts.timeoutMs ?? 10_000;
    // The URL's own settings win; the timeouts apply where it sets none.
    this.transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: this.smtpUrl,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      }),
    );
    return this.transporter;
  }

  async send(message: EmailMessage, messageId: string): Promise<SendResult> {
    const started = performance.now();
    const { subject, text, html } = composeEmail(message, this.opts.links());
    const to = message.emailTo;
    const session = new AbortController();
    const deadlineMs = this.opts.deadlineMs ?? SEND_DEADLINE_MS;
    const deadline = setTimeout(() => session.abort(), deadlineMs);
    this.inFlight.add(session);
    try {
      const info = await (await this.transport()).sendMail({
        from: this.from,
        to,
        subject,
        text,
        html,
        messageId: `<${messageId}@travel-rule-hub>`,
        // The timeouts above bound each wait for the server; this bounds the whole session.
        signal: session.signal,
      });
      const latencyMs = performance.now() - started;
      const code = smtpCode(info.response);
      if ((info.accepted ?? []).length === 0 || (info.rejected ?? []).length > 0) {
        return {
          ok: false,
          statusCode: code,
          latencyMs,
          error: `rejected by SMTP: ${String(info.response)}`,
        };
      }
      return { ok: true, statusCode: code, latencyMs, error: null };
    } catch (err) {
      if (this.shuttingDown) {
        return {
          ok: false,
          statusCode: null,
          latencyMs: performance.now() - started,
          error: 'hub shut down before the SMTP server answered',
        };
      }
      if ((err as { name?: string }).name === 'AbortError') {
        return {
          ok: false,
          statusCode: null,
          latencyMs: performance.now() - started,
          error: `timeout: the SMTP session took longer than ${deadlineMs / 1000} s`,
        };
      }
      const e = err as { responseCode?: number; code?: string; message?: string };
      return {
        ok: false,
        statusCode: typeof e.responseCode === 'number' ? e.responseCode : null,
        latencyMs: performance.now() - started,
        error: `${e.code ? `${e.code}: ` : ''}${String(e.message ?? err)}`.slice(0, 500),
      };
    } finally {
      clearTimeout(deadline);
      this.inFlight.delete(session);
    }
  }

  /** Ends every SMTP session still in flight: each send resolves as a failure, which is recorded. */
  abortAll(): void {
    this.shuttingDown = true;
    for (const session of this.inFlight) session.abort();
  }

  close(): void {
    void this.transporter?.then((t) => t.close());
  }
}

function smtpCode(response: unknown): number | null {
  const m = /^(\d{3})\b/.exec(String(response ?? ''));
  return m ? Number(m[1]) : null;
}

/** A plausible domain for the From address: the hub's public host when it is a name. */
function senderDomain(joinUrl: string): string {
  try {
    const host = new URL(joinUrl).hostname;
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) && /[a-z]/i.test(host) ? host : 'localhost';
  } catch {
    return 'localhost';
  }
}
