/**
 * A real SMTP server on 127.0.0.1 for tests (smtp-server): accepts any sender, no TLS, and keeps
 * every message raw (headers and body as submitted). `rejectNext(n)` answers the next n messages
 * with a temporary failure (451), to exercise retries.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
}

export class SmtpSink {
  readonly messages: CapturedMail[] = [];
  private rejections = 0;

  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  static async start(): Promise<SmtpSink> {
    let self: SmtpSink | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (self!.rejections > 0) {
            self!.rejections--;
            const err = Object.assign(new Error('try again later'), { responseCode: 451 });
            return callback(err);
          }
          self!.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    self = new SmtpSink(server, `smtp://127.0.0.1:${port}`);
    return self;
  }

  rejectNext(n: number): this {
    this.rejections += n;
    return this;
  }

  async waitFor(predicate: (s: SmtpSink) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) throw new Error(`smtp: timed out; ${this.messages.length} message(s)`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The decoded body of a captured message's part of type `type` (text/plain by default); a message
 * of one part is that part. Undoes quoted-printable and base64.
 */
export function decodeBody(raw: string, type = 'text/plain'): string {
  const { headers, body } = splitPart(raw);
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  if (!boundary) return decodePart(headers, body);
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    const part = splitPart(chunk.replace(/^\r\n/, ''));
    if (new RegExp(`content-type:\\s*${type}`, 'i').test(part.headers))
      return decodePart(part.headers, part.body);
  }
  throw new Error(`the message has no ${type} part`);
}

function splitPart(raw: string): { headers: string; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  return { headers: raw.slice(0, split).replace(/\r\n[ \t]+/g, ' '), body: raw.slice(split + 4) };
}

function decodePart(headers: string, body: string): string {
  if (/content-transfer-encoding:\s*base64/i.test(headers))
    return Buffer.from(body, 'base64').toString('utf8');
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(headers)) return body;
  return Buffer.from(
    body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
}

/** A header's value (unfolded), or undefined. */
export function header(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const m = new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head);
  return m?.[1];
}
