/**
 * The texts of the e-mails the hub sends, by event (events.ts), composed at send time from the
 * outbox payload alone. Pure, so tests can check what a message says and that it holds no personal
 * data. Values that a counterparty chose are escaped: none can add a line of its own to a message
 * that goes out in the hub's name.
 * The NOTIFY announcement is built from the transfer's asset, amount, destination address,
 * originator VASP and reference — never a person's name, address or identifier.
 */
import { escapeControls } from '../text/controls.js';
import type { EmailMessage, EmailPayload } from './events.js';

export interface EmailText {
  subject: string;
  text: string;
}

/**
 * A payload value as e-mail text. The originator chooses some of them (the destination address,
 * its own name), so control characters, line breaks included, are escaped: none can add a line
 * or a paragraph of its own to a message that goes out in the hub's name.
 */
const str = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? escapeControls(String(v)) : 'unknown';

/** Subject and text of the announcement; pure, so tests can check it holds no personal data. */
export function composeNotifyEmail(payload: EmailPayload<'notify'>, joinUrl: string): EmailText {
  const ref = str(payload.transactionRef);
  const asset = str(payload.transactionAsset);
  const amount = str(payload.transactionAmount);
  const originator = `${str(payload.originatorName)} (${str(payload.originatorVASPdid)})`;
  const base = joinUrl.replace(/\/+$/, '');
  const lines = [
    'Hello,',
    '',
    `${originator} is sending a virtual-asset transfer to an address it believes your exchange`,
    'services, and announces it under the FATF travel rule (Recommendation 16) through the Travel Rule Hub.',
    '',
    `  Asset:            ${asset}`,
    `  Amount:           ${amount}`,
    `  Destination:      ${str(payload.destination)}`,
    `  Originator VASP:  ${originator}`,
    `  Reference:        ${ref}`,
    ...(payload.beneficiaryVASPid ? [`  Your VASP id:     ${str(payload.beneficiaryVASPid)}`] : []),
    '',
    'Your exchange is not connected to the hub, so the travel rule data of this transfer cannot be',
    'delivered to you directly. To receive it, and that of future transfers, as signed and encrypted',
    'webhooks, join the hub:',
    '',
    `  ${base}   (API documentation: ${base}/docs)`,
    '',
    "Ask the hub's operator to register your exchange, and quote the reference above.",
    '',
    'This message contains no personal data.',
    '',
    '-- ',
    'Travel Rule Hub',
  ];
  return {
    subject: `Travel rule notice: incoming ${amount} ${asset} transfer (reference ${ref})`,
    text: `${lines.join('\n')}\n`,
  };
}

/** Subject and text of an outbox e-mail, by its event. */
export function composeEmail(message: EmailMessage, hubUrl: string): EmailText {
  switch (message.event) {
    case 'notify':
      return composeNotifyEmail(message.payload, hubUrl);
    case 'endpoint-changed':
      return composeEndpointChanged(message.payload, hubUrl);
  }
}

const FIELD_NAMES = { travelEndpoint: 'Travel endpoint', publicKey: 'Public key (fingerprint)' } as const;

/** The notice of a change to where an organization's data goes (SPEC §13): what, by whom, when. */
export function composeEndpointChanged(payload: EmailPayload<'endpoint-changed'>, hubUrl: string): EmailText {
  const name = `${str(payload.organizationName)} (${str(payload.vaspDid)})`;
  const lines = [
    'Hello,',
    '',
    `The Travel Rule Hub entry of ${name} was changed by ${str(payload.changedBy)} at ${str(payload.at)}:`,
    '',
    ...payload.changes.flatMap((c) => [
      `  ${FIELD_NAMES[c.field]}:`,
      `    before: ${c.from === null ? '(none)' : str(c.from)}`,
      `    after:  ${c.to === null ? '(none)' : str(c.to)}`,
    ]),
    '',
    'Travel rule messages to your organization now go to the endpoint, and are encrypted for the',
    'key, shown as "after". If your organization did not make this change, tell the operator of the',
    `hub at once (${hubUrl.replace(/\/+$/, '')}) and revoke your API keys.`,
    '',
    '-- ',
    'Travel Rule Hub',
  ];
  return { subject: `Travel Rule Hub: the entry of ${name} was changed`, text: `${lines.join('\n')}\n` };
}
