/** Helpers for suites that sign people in: invitations through a real SMTP server, cookies, CSRF. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { base32Decode, hotp, timeStep } from '../../src/people/totp.js';
import type { ApiResponse, TestHub } from '../harness.js';
import { decodeBody, type SmtpSink } from './smtp.js';

export const PASSWORD = 'correct horse battery staple';

export const uniqueEmail = (who = 'person') => `${who}-${randomBytes(5).toString('hex')}@vasp.example`;

/** A signed-in session: its cookie and CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
  user: { id: string; role: string; organizationId: string | null };
}

/** The invitation link e-mailed to `to` (waits for the mail). */
export async function invitationLink(smtp: SmtpSink, to: string): Promise<string> {
  await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(to)));
  const mail = smtp.messages.find((m) => m.to.includes(to))!;
  const text = decodeBody(mail.raw);
  const link = /(https?:\/\/\S+\/invitation\/[A-Za-z0-9_-]{43})/.exec(text)?.[1];
  assert.ok(link, `the e-mail holds the invitation link:\n${text}`);
  return link;
}

export const tokenOf = (link: string) => link.slice(link.lastIndexOf('/') + 1);

/** Invites with `by` (a key or a session), accepts through the e-mailed link; the new user's id. */
export async function addPerson(
  hub: TestHub,
  smtp: SmtpSink,
  by: { key: string } | Session,
  role: string,
  opts: { admin?: boolean; email?: string } = {},
): Promise<{ email: string; id: string }> {
  const email = opts.email ?? uniqueEmail(role);
  const path = opts.admin ? '/v1/admin/users/invitations' : '/v1/users/invitations';
  const res = await as(hub, by, 'POST', path, { email, role });
  assert.equal(res.status, 201, res.text);
  const token = tokenOf(await invitationLink(smtp, email));
  const accepted = await hub.request('POST', `/v1/invitations/${token}/accept`, {
    body: { name: `Person ${role}`, password: PASSWORD },
  });
  assert.equal(accepted.status, 201, accepted.text);
  return { email, id: accepted.body.user.id };
}

export async function signIn(
  hub: TestHub,
  email: string,
  password = PASSWORD,
  totp?: string,
): Promise<{ res: ApiResponse; session?: Session }> {
  const res = await hub.request('POST', '/v1/sessions', {
    body: { email, password, ...(totp === undefined ? {} : { totp }) },
  });
  if (res.status !== 200) return { res };
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { res, session: { cookie, csrf: res.body.csrfToken, user: res.body.user } };
}

/** A request as a key or as a session (with its CSRF token unless `csrf: false`). */
export function as(
  hub: TestHub,
  who: { key: string } | Session,
  method: string,
  path: string,
  body?: unknown,
  opts: { csrf?: boolean } = {},
): Promise<ApiResponse> {
  if ('key' in who) return hub.request(method, path, { key: who.key, body });
  const headers: Record<string, string> = { cookie: who.cookie };
  if (opts.csrf !== false) headers['x-csrf-token'] = who.csrf;
  return hub.request(method, path, { body, headers });
}

/** The TOTP code of `secret` at `step` steps from now's. */
export function totpCode(secret: string, offset = 0): string {
  return hotp(base32Decode(secret)!, timeStep(Date.now()) + offset);
}
