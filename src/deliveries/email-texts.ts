/**
 * The texts of the e-mails the hub sends, by event (events.ts), composed at send time from the
 * outbox payload and the links of the hub (a claim link, a credentials link: their tokens exist
 * only here, derived from the master key, never stored). Pure, so tests can check what a message
 * says and that it holds no personal data. Each has a plain-text part and an HTML part.
 * Values that a counterparty chose are escaped: none can add a line of its own to a message that
 * goes out in the hub's name, nor markup to its HTML.
 */
import { escapeControls } from '../text/controls.js';
import { humanTime } from '../text/times.js';
import type { EmailMessage, EmailPayload } from './events.js';

export interface EmailText {
  subject: string;
  text: string;
  html: string;
}

/** Where an e-mail's links point. */
export interface EmailLinks {
  /** The hub's public base URL. */
  hub: string;
  /** How outsiders reach the hub's operator (HUB_OPERATOR_CONTACT), or null when it is not set. */
  operator: string | null;
  /** The claim page of a NOTIFY transaction. */
  claim(transactionRef: string): string;
  /** The single-use page that shows an approved applicant its credentials. */
  credentials(pickupId: string): string;
  /** The single-use page where an invited person sets a name and password (SPEC §17). */
  invitation(invitationId: string): string;
}

/** A value as e-mail text: control characters, line breaks included, escaped. */
const str = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? escapeControls(String(v)) : 'unknown';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const html = (v: string) => v.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** A time for people, the exact value beside it (text/times.ts). */
const when = (v: unknown): string => (typeof v === 'string' ? str(humanTime(v)) : 'unknown');

/** Where to reach the hub's operator: HUB_OPERATOR_CONTACT, else the hub's own address. */
const operatorAt = (links: EmailLinks): string => links.operator ?? links.hub.replace(/\/+$/, '');

/** The closing line of every e-mail to someone outside the hub, when the operator named a contact. */
const contactLine = (links: EmailLinks): string[] =>
  links.operator === null ? [] : [`To reach the operator of this hub: ${links.operator}`];

/** One message: paragraphs of text (already escaped), key-value rows, and at most one link. */
interface Body {
  subject: string;
  intro: string[];
  rows?: [string, string][];
  link?: { label: string; url: string; after?: string[] };
  outro: string[];
}

function render(b: Body): EmailText {
  const width = Math.max(0, ...(b.rows ?? []).map(([k]) => k.length)) + 2;
  const text = [
    'Hello,',
    '',
    ...b.intro,
    ...(b.rows ? ['', ...b.rows.map(([k, v]) => `  ${`${k}:`.padEnd(width)}${v}`)] : []),
    ...(b.link ? ['', `${b.link.label}:`, '', `  ${b.link.url}`, '', ...(b.link.after ?? [])] : []),
    '',
    ...b.outro,
    '',
    '-- ',
    'Travel Rule Hub',
  ].join('\n');
  const paragraphs = (lines: string[]) => lines.filter((l) => l !== '').map((l) => `<p>${html(l)}</p>`);
  const markup = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    '<p>Hello,</p>',
    ...paragraphs(b.intro),
    ...(b.rows
      ? [
          '<table>',
          ...b.rows.map(
            ([k, v]) => `<tr><th align="left">${html(k)}</th><td><code>${html(v)}</code></td></tr>`,
          ),
          '</table>',
        ]
      : []),
    ...(b.link
      ? [`<p><a href="${html(b.link.url)}">${html(b.link.label)}</a></p>`, ...paragraphs(b.link.after ?? [])]
      : []),
    ...paragraphs(b.outro),
    '<p>-- <br>Travel Rule Hub</p>',
    '</body></html>',
  ].join('\n');
  return { subject: b.subject, text: `${text}\n`, html: `${markup}\n` };
}

/** Subject, text and HTML of an outbox e-mail, by its event. */
export function composeEmail(message: EmailMessage, links: EmailLinks): EmailText {
  switch (message.event) {
    case 'notify':
      return composeNotifyEmail(message.payload, links);
    case 'notify-cancelled':
      return composeNotifyCancelled(message.payload, links);
    case 'application-received':
      return composeReceived(message.payload, links);
    case 'application-approved':
      return composeApproved(message.payload, links);
    case 'application-approved-contact':
      return composeApprovedContact(message.payload, links);
    case 'application-rejected':
      return composeRejected(message.payload, links);
    case 'endpoint-changed':
      return composeEndpointChanged(message.payload, links);
    case 'endpoint-down':
      return composeEndpointDown(message.payload, links.hub);
    case 'user-invitation':
      return composeInvitation(message.payload, links);
  }
}

/**
 * The NOTIFY announcement: the transfer's asset, amount, destination address, originator VASP and
 * reference — never a person's name, address or identifier — and the claim link.
 */
export function composeNotifyEmail(payload: EmailPayload<'notify'>, links: EmailLinks): EmailText {
  const ref = str(payload.transactionRef);
  const asset = str(payload.transactionAsset);
  const amount = str(payload.transactionAmount);
  const originator = `${str(payload.originatorName)} (${str(payload.originatorVASPdid)})`;
  return render({
    subject: `Travel rule notice: incoming ${amount} ${asset} transfer (reference ${ref})`,
    intro: [
      `${originator} is sending a virtual-asset transfer to an address it believes your exchange`,
      'services, and announces it under the FATF travel rule (Recommendation 16) through the Travel Rule Hub.',
    ],
    rows: [
      ['Asset', asset],
      ['Amount', amount],
      ['Destination', str(payload.destination)],
      ['Originator VASP', originator],
      ['Reference', ref],
      ...(payload.beneficiaryVASPid
        ? ([['Your VASP id', str(payload.beneficiaryVASPid)]] as [string, string][])
        : []),
    ],
    link: {
      label: 'To receive the travel rule data of this transfer, claim it',
      url: links.claim(payload.transactionRef),
      after: [
        'The page lets your exchange join the hub (the operator reviews the application), or attach the',
        'transfer to your exchange if it is already a member. The link works while the transfer is open;',
        'it shows the state of an application made through it, and after a rejection it takes a new one.',
      ],
    },
    outro: [
      `About the hub: ${links.hub.replace(/\/+$/, '')}/docs`,
      ...contactLine(links),
      'This message contains no personal data.',
    ],
  });
}

export function composeNotifyCancelled(
  payload: EmailPayload<'notify-cancelled'>,
  links: EmailLinks,
): EmailText {
  const ref = str(payload.transactionRef);
  return render({
    subject: `Travel rule notice: transfer ${ref} cancelled`,
    intro: [
      `${str(payload.originatorName)} (${str(payload.originatorVASPdid)}) has cancelled the transfer of`,
      `${str(payload.transactionAmount)} ${str(payload.transactionAsset)} announced to you under reference ${ref}.`,
      'The claim link of the earlier message no longer works.',
    ],
    outro: [...contactLine(links), 'This message contains no personal data.'],
  });
}

/** To the applicant's contact: the application arrived and waits for the operator's review. */
export function composeReceived(payload: EmailPayload<'application-received'>, links: EmailLinks): EmailText {
  return render({
    subject: `Travel Rule Hub: application of ${str(payload.organizationName)} received`,
    intro: [
      `The hub received the application of ${str(payload.organizationName)} to join, on ${when(payload.appliedAt)}.`,
      "The hub's operator reviews it; its answer comes by e-mail. The claim link the application was",
      'made through shows its state meanwhile.',
    ],
    outro: contactLine(links).length > 0 ? contactLine(links) : [`The hub: ${operatorAt(links)}`],
  });
}

export function composeApproved(payload: EmailPayload<'application-approved'>, links: EmailLinks): EmailText {
  return render({
    subject: `Travel Rule Hub: ${str(payload.organizationName)} is a member`,
    intro: [
      `The hub's operator approved the application of ${str(payload.organizationName)}; it is now in the`,
      'directory, verified.',
    ],
    link: {
      label: 'Your API key and webhook signing secret are shown once, on this page',
      url: links.credentials(payload.pickupId),
      after: [
        `The link works once, until ${when(payload.expiresAt)}.`,
        'Keep what it shows in your secrets store: the hub keeps only a hash of the key and cannot show it again.',
      ],
    },
    outro: [`API documentation: ${links.hub.replace(/\/+$/, '')}/docs`, ...contactLine(links)],
  });
}

/** To an approved applicant's contact, when the credentials link went to another address: no link. */
export function composeApprovedContact(
  payload: EmailPayload<'application-approved-contact'>,
  links: EmailLinks,
): EmailText {
  return render({
    subject: `Travel Rule Hub: ${str(payload.organizationName)} is a member`,
    intro: [
      `The hub's operator approved the application of ${str(payload.organizationName)}, which names this`,
      'address as its contact; it is now in the directory, verified.',
      `The single-use link to its API key and webhook secret went to ${str(payload.credentialsSentTo)},`,
      'the address the transfer announcement that led to the application was sent to.',
    ],
    outro: [
      'If your organization did not apply, or does not know that address, tell the operator of the hub',
      `at once: ${operatorAt(links)}`,
    ],
  });
}

/** To the applicant's contact: the operator's reason, whom to ask, and that the link takes a new application. */
export function composeRejected(payload: EmailPayload<'application-rejected'>, links: EmailLinks): EmailText {
  return render({
    subject: `Travel Rule Hub: application of ${str(payload.organizationName)} not approved`,
    intro: [
      `The hub's operator did not approve the application of ${str(payload.organizationName)}${
        payload.decidedAt === undefined ? '.' : ` (decided ${when(payload.decidedAt)}).`
      }`,
      `The operator's reason: ${str(payload.reason)}`,
    ],
    outro: [
      'The claim link the application was made through works again while the transfer is open: it',
      'takes a new application, for instance with what the reason asks for.',
      `Questions about the decision go to the operator of this hub: ${operatorAt(links)}`,
    ],
  });
}

const FIELD_NAMES = {
  travelEndpoint: 'Travel endpoint',
  publicKey: 'Public key (fingerprint)',
  contactEmail: 'Contact address',
} as const;

/** The notice of a change to where an organization's data goes (SPEC §13): what, by whom, when. */
export function composeEndpointChanged(
  payload: EmailPayload<'endpoint-changed'>,
  links: EmailLinks,
): EmailText {
  const name = `${str(payload.organizationName)} (${str(payload.vaspDid)})`;
  return render({
    subject: `Travel Rule Hub: the entry of ${name} was changed`,
    intro: [
      `The Travel Rule Hub entry of ${name} was changed by ${str(payload.changedBy)} on ${when(payload.at)}:`,
    ],
    rows: payload.changes.flatMap((c): [string, string][] => [
      [`${FIELD_NAMES[c.field]}, before`, c.from === null ? '(none)' : str(c.from)],
      [`${FIELD_NAMES[c.field]}, after`, c.to === null ? '(none)' : str(c.to)],
    ]),
    outro: [
      ...(payload.changes.some((c) => c.field !== 'contactEmail')
        ? ['Travel rule messages to your organization now go where the "after" values say.']
        : []),
      ...(payload.changes.some((c) => c.field === 'contactEmail')
        ? ['The hub\'s notices about your organization now go to the contact address shown as "after".']
        : []),
      'If your organization did not make this change, tell the operator of the hub at once',
      `(${operatorAt(links)}) and revoke your API keys.`,
    ],
  });
}

/** An invitation to join an organization's team (or the hub's operators): the single-use link. */
export function composeInvitation(payload: EmailPayload<'user-invitation'>, links: EmailLinks): EmailText {
  const team =
    payload.organizationName === null
      ? 'the operators of this Travel Rule Hub'
      : `the team of ${str(payload.organizationName)} on the Travel Rule Hub`;
  return render({
    subject:
      payload.organizationName === null
        ? 'Travel Rule Hub: you are invited as an operator'
        : `Travel Rule Hub: you are invited to ${str(payload.organizationName)}`,
    intro: [`You are invited to join ${team}, with the role ${str(payload.role)}.`],
    link: {
      label: 'To accept, choose your name and a password (at least 12 characters) here',
      url: links.invitation(payload.invitationId),
      after: [`The link works once, until ${when(payload.expiresAt)}.`],
    },
    outro: ['If you did not expect this invitation, ignore this message: nothing happens without the link.'],
  });
}

const ERROR_WORDS: Record<string, string> = {
  timeout: 'no answer in time (timeout)',
  connection: 'no connection (refused, reset or unresolvable)',
  'http-5xx': 'the endpoint answered with a server error (HTTP 5xx)',
  'http-4xx': 'the endpoint refused the messages (HTTP 4xx)',
  'refused-target': 'the hub refuses the address (it resolves to a private or reserved network)',
  'invalid-answer': 'the answer was not what the hub expects',
};

/**
 * The endpoint-down notice to an organization's contact: its endpoint's host, since when the
 * webhooks to it fail, the error class, how many messages wait, and where to look. Never a
 * message's content nor the endpoint's answer.
 */
export function composeEndpointDown(payload: EmailPayload<'endpoint-down'>, hub: string): EmailText {
  const name = `${str(payload.organizationName)} (${str(payload.vaspDid)})`;
  const host = payload.endpointHost === null ? '(no endpoint set)' : str(payload.endpointHost);
  const error =
    payload.lastError === null ? 'unknown' : (ERROR_WORDS[payload.lastError] ?? str(payload.lastError));
  return render({
    subject: `Travel Rule Hub: webhooks to ${host} are failing`,
    intro: [
      `The Travel Rule Hub cannot deliver travel rule messages to ${name}: every attempt to reach its`,
      'endpoint has failed for more than an hour, and the hub has paused sending there (it retries on its schedule).',
    ],
    rows: [
      ['Endpoint host', host],
      ['Failing since', when(payload.failingSince)],
      ['Paused since', when(payload.openSince)],
      ['Last error', error],
      ['Messages waiting', String(payload.waiting)],
      ['Messages given up (can be sent again)', String(payload.failed)],
    ],
    link: {
      label: 'Delivery health in the dashboard shows every message and attempt',
      url: `${hub.replace(/\/+$/, '')}/ui/#/deliveries`,
      after: [
        'Once the endpoint answers again, waiting messages go out by themselves; messages given up can be',
        'sent again there (Redeliver) or with POST /v1/webhooks/deliveries/{id}/redeliver.',
      ],
    },
    outro: [
      'The hub sends this notice at most once a day while the endpoint stays down.',
      'This message contains no personal data.',
    ],
  });
}
