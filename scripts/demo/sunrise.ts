/**
 * The demo's NOTIFY sunrise path: the outside exchange follows the claim link of the e-mail it got,
 * applies to join, the operator approves, the credentials link of the second e-mail shows its key
 * once, and the transfer continues as MAIN with the newcomer as beneficiary.
 */
import type { AddressInfo } from 'node:net';
import {
  createHubClient,
  createReceiver,
  type HubClient,
  type ReceivedEvent,
  unwrap,
} from '../../src/sdk.js';
import { run, until } from './steps.js';

/** A link to `path` in the text of a captured e-mail (quoted-printable soft breaks undone). */
function linkIn(mail: string, path: 'claim' | 'credentials'): string {
  const text = mail.replace(/=\r?\n/g, '');
  const match = new RegExp(`https?://[^\\s"<>]+/${path}/([A-Za-z0-9_-]{43})`).exec(text);
  if (!match) throw new Error(`no ${path} link in the e-mail`);
  return match[1]!;
}

export async function sunrise(o: {
  hubUrl: string;
  admin: HubClient;
  originator: HubClient;
  originatorEvents: ReceivedEvent[];
  notificationEmail: string;
  transactionRef: string;
  mails: string[];
  cleanup: (() => Promise<unknown> | unknown)[];
}): Promise<void> {
  const ref = o.transactionRef;
  const announcement = () => o.mails.find((m) => m.includes(ref) && m.includes('/claim/'));
  const claimToken = await run(
    'Exchange C opens the claim link of the e-mail (no key needed)',
    async () => {
      const token = linkIn(await until('the claim link', announcement), 'claim');
      const res = await fetch(`${o.hubUrl}/v1/claims/${token}`);
      if (!res.ok) throw new Error(`the claim link answered ${res.status}`);
      return { token, view: (await res.json()) as { originator: { name: string } } };
    },
    (c) => `announced by ${c.view.originator.name}: join, or attach it as a member`,
  );

  // C's receiver verifies with the secret it will be shown once; until then it answers 401 and the hub retries.
  const secretsC: string[] = [];
  const eventsC: ReceivedEvent[] = [];
  const receiver = createReceiver({ secrets: secretsC, onEvent: (e) => eventsC.push(e) });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  o.cleanup.unshift(() => new Promise((r) => receiver.close(() => r(undefined))));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const application = await run(
    'C applies to join the hub through the link',
    async () => {
      const res = await fetch(`${o.hubUrl}/v1/claims/${claimToken.token}/application`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Exchange C',
          vaspDid: 'did:web:exchange-c.example',
          travelEndpoint: endpoint,
          contactEmail: 'onboarding@exchange-c.example',
        }),
      });
      if (res.status !== 201) throw new Error(`the application answered ${res.status}`);
      return (await res.json()) as { applicationId: string };
    },
    (a) => `application ${a.applicationId} waits for the operator`,
  );
  await run('The operator approves it: Exchange C is in the directory, verified', () =>
    unwrap(
      o.admin.POST('/v1/admin/applications/{id}/approve', {
        params: { path: { id: application.applicationId } },
      }),
    ),
  );
  const credentials = await run(
    'C opens the credentials link of the second e-mail: its API key and secret, shown once',
    async () => {
      const mail = await until('the credentials e-mail', () =>
        // It goes where the claim link went (SPEC §12): the inbox C proved it reads.
        o.mails.find((m) => m.includes(o.notificationEmail) && m.includes('/credentials/')),
      );
      const res = await fetch(`${o.hubUrl}/v1/credentials/${linkIn(mail, 'credentials')}`, {
        method: 'POST',
      });
      if (!res.ok) throw new Error(`the credentials link answered ${res.status}`);
      const shown = (await res.json()) as { apiKey: string; webhookSecret: string };
      secretsC.push(shown.webhookSecret);
      return shown;
    },
    (c) => `API key ${c.apiKey.slice(0, 12)}…, webhook secret ${c.webhookSecret.slice(0, 10)}…`,
  );
  await run('C receives `received`; A receives `beneficiary-joined`', async () => {
    await until('received at C', () =>
      eventsC.find((e) => e.event === 'received' && e.payload.transactionRef === ref),
    );
    return until('beneficiary-joined at A', () =>
      o.originatorEvents.find((e) => e.event === 'beneficiary-joined' && e.payload.transactionRef === ref),
    );
  });
  await run('A confirms; C receives `confirmed-data` with the personal data, as under MAIN', async () => {
    await unwrap(o.originator.POST('/v1/transactions/confirm', { body: { transactionRef: ref } }));
    await until('confirmed-data at C', () =>
      eventsC.find((e) => e.event === 'confirmed-data' && e.payload.transactionRef === ref),
    );
    const c = createHubClient({ baseUrl: o.hubUrl, apiKey: credentials.apiKey });
    return unwrap(c.GET('/v1/transactions/{transactionRef}', { params: { path: { transactionRef: ref } } }));
  });
}
