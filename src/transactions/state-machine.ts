/**
 * The transaction state machine (SPEC §7) as one explicit table. Pure: no I/O. Every status
 * change in the hub goes through `transition`; an illegal move returns an InvalidTransition
 * that the HTTP layer answers with 409 INVALID_STATE naming the current state.
 *
 *   NEW ──notified──▶ RECEIVER_NOTIFIED ──data_delivered (BASIC)──▶ CONFIRMED ──decline──▶ DECLINED
 *                                      └──confirm (MAIN)───────────▶
 * `share_tx_hash` changes no status; it is allowed in every state but DECLINED.
 */
export const STATES = ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', 'DECLINED'] as const;
export type State = (typeof STATES)[number];

export const PROTOCOLS = ['MAIN', 'BASIC', 'NOTIFY'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const EVENTS = ['notified', 'data_delivered', 'confirm', 'decline', 'share_tx_hash'] as const;
export type TxEvent = (typeof EVENTS)[number];

interface Rule {
  to: State | 'same';
  protocols: readonly Protocol[];
}

const ALL = PROTOCOLS;

/** from → event → rule. A missing entry is an illegal move. */
const TABLE: Readonly<Record<State, Partial<Record<TxEvent, Rule>>>> = {
  NEW: {
    // `received` answered 2xx (MAIN, BASIC) or the NOTIFY e-mail accepted by SMTP.
    notified: { to: 'RECEIVER_NOTIFIED', protocols: ALL },
    share_tx_hash: { to: 'same', protocols: ALL },
  },
  RECEIVER_NOTIFIED: {
    // BASIC's data went out with `received`: no confirmation is needed.
    data_delivered: { to: 'CONFIRMED', protocols: ['BASIC'] },
    confirm: { to: 'CONFIRMED', protocols: ['MAIN'] },
    share_tx_hash: { to: 'same', protocols: ALL },
  },
  CONFIRMED: {
    decline: { to: 'DECLINED', protocols: ALL },
    share_tx_hash: { to: 'same', protocols: ALL },
  },
  DECLINED: {},
};

/**
 * A refused move carries its explanation for the caller's error. It is a plain value, not an
 * Error: the worker asks about moves that do not apply (a MAIN transaction is never confirmed
 * by delivery) for every delivered message, and capturing a stack each time showed in profiles.
 */
export type TransitionResult = { ok: true; to: State } | { ok: false; from: State; reason: string };

export function transition(from: State, event: TxEvent, protocol: Protocol): TransitionResult {
  const rule = TABLE[from][event];
  if (!rule?.protocols.includes(protocol)) {
    return { ok: false, from, reason: describe(from, event, protocol) };
  }
  return { ok: true, to: rule.to === 'same' ? from : rule.to };
}

const ACTIONS: Record<TxEvent, string> = {
  notified: 'mark as notified',
  data_delivered: 'confirm by delivery',
  confirm: 'confirm',
  decline: 'decline',
  share_tx_hash: 'share a transaction hash for',
};

function describe(from: State, event: TxEvent, protocol: Protocol): string {
  const somewhere = STATES.find((s) => TABLE[s][event]?.protocols.includes(protocol));
  if (!somewhere) {
    return `Cannot ${ACTIONS[event]} a ${protocol} transaction; the transaction is ${from}.`;
  }
  if (from === 'DECLINED')
    return `The transaction is DECLINED; a declined transaction cannot be processed again.`;
  return `Cannot ${ACTIONS[event]} a transaction in state ${from}; the transaction is ${from}.`;
}
