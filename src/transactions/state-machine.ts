/**
 * The transaction state machine (SPEC §7, §11, §12, §16) as one explicit table. Pure: no I/O.
 * Every status change in the hub goes through `transition`; an illegal move returns a refusal
 * that the HTTP layer answers with 409 INVALID_STATE naming the current state.
 *
 * A transaction follows one of six flows, named by its protocol and, for NOTIFY and TRP, by what
 * happened since: a NOTIFY transaction that its beneficiary claimed follows MAIN from then on, and a
 * TRP transaction runs outward (a member pays a TRP VASP) or inward (a TRP VASP pays a member).
 *
 *   NEW ──notified──▶ RECEIVER_NOTIFIED ──data_delivered (BASIC)──────────▶ CONFIRMED ──decline──▶ DECLINED
 *                                       ├─confirm (MAIN, NOTIFY_CLAIMED)──▶
 *                                       ├─approve (TRP_IN) ────────────────▶
 *                                       └─peer_approved (TRP_OUT) ─────────▶
 *   RECEIVER_NOTIFIED ──decline (TRP_IN), peer_rejected (TRP_OUT)──▶ DECLINED
 *   NEW, RECEIVER_NOTIFIED, CONFIRMED ──cancel, peer_cancelled──▶ CANCELLED
 *   NEW, RECEIVER_NOTIFIED ──expire──▶ EXPIRED
 * DECLINED, CANCELLED and EXPIRED are final. `share_tx_hash` and `attach` (a NOTIFY beneficiary
 * claims the transaction) change no status. Conditions outside the table (a cancel only before a
 * txHash was shared) are the commands'.
 */
export const STATES = ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', 'DECLINED', 'CANCELLED', 'EXPIRED'] as const;
export type State = (typeof STATES)[number];

export const FINAL_STATES: readonly State[] = ['DECLINED', 'CANCELLED', 'EXPIRED'];

export const PROTOCOLS = ['MAIN', 'BASIC', 'NOTIFY', 'TRP'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const FLOWS = ['MAIN', 'BASIC', 'NOTIFY', 'NOTIFY_CLAIMED', 'TRP_OUT', 'TRP_IN'] as const;
export type Flow = (typeof FLOWS)[number];

export const EVENTS = [
  'notified',
  'data_delivered',
  'confirm',
  'approve',
  'decline',
  'share_tx_hash',
  'attach',
  'cancel',
  'expire',
  'peer_approved',
  'peer_rejected',
  'peer_cancelled',
] as const;
export type TxEvent = (typeof EVENTS)[number];

interface Rule {
  to: State | 'same';
  flows: readonly Flow[];
}

const ALL = FLOWS;
/** Flows in which the beneficiary is told by the hub (a webhook or the NOTIFY e-mail). */
const HUB_NOTIFIES: readonly Flow[] = ['MAIN', 'BASIC', 'NOTIFY', 'TRP_IN'];
/** Flows in which the beneficiary may refuse a CONFIRMED transaction. */
const DECLINABLE_WHEN_CONFIRMED: readonly Flow[] = ['MAIN', 'BASIC', 'NOTIFY_CLAIMED'];
/** A member cancels its own transfer; a TRP peer cancels one it sent. */
const MEMBER_ORIGINATED: readonly Flow[] = ['MAIN', 'BASIC', 'NOTIFY', 'NOTIFY_CLAIMED', 'TRP_OUT'];

/** from → event → rule. A missing entry is an illegal move. */
const TABLE: Readonly<Record<State, Partial<Record<TxEvent, Rule>>>> = {
  NEW: {
    // `received` answered 2xx, the NOTIFY e-mail accepted by SMTP, or the TRP peer took the inquiry.
    notified: { to: 'RECEIVER_NOTIFIED', flows: [...HUB_NOTIFIES, 'TRP_OUT'] },
    // The claim link proves the e-mail arrived, even before its delivery was recorded.
    attach: { to: 'RECEIVER_NOTIFIED', flows: ['NOTIFY'] },
    share_tx_hash: { to: 'same', flows: ALL },
    cancel: { to: 'CANCELLED', flows: MEMBER_ORIGINATED },
    peer_cancelled: { to: 'CANCELLED', flows: ['TRP_IN'] },
    expire: { to: 'EXPIRED', flows: ALL },
  },
  RECEIVER_NOTIFIED: {
    // BASIC's data went out with `received`: no confirmation is needed.
    data_delivered: { to: 'CONFIRMED', flows: ['BASIC'] },
    confirm: { to: 'CONFIRMED', flows: ['MAIN', 'NOTIFY_CLAIMED'] },
    approve: { to: 'CONFIRMED', flows: ['TRP_IN'] },
    peer_approved: { to: 'CONFIRMED', flows: ['TRP_OUT'] },
    decline: { to: 'DECLINED', flows: ['TRP_IN'] },
    peer_rejected: { to: 'DECLINED', flows: ['TRP_OUT'] },
    attach: { to: 'same', flows: ['NOTIFY'] },
    share_tx_hash: { to: 'same', flows: ALL },
    cancel: { to: 'CANCELLED', flows: MEMBER_ORIGINATED },
    peer_cancelled: { to: 'CANCELLED', flows: ['TRP_IN'] },
    expire: { to: 'EXPIRED', flows: ALL },
  },
  CONFIRMED: {
    decline: { to: 'DECLINED', flows: DECLINABLE_WHEN_CONFIRMED },
    share_tx_hash: { to: 'same', flows: ALL },
    cancel: { to: 'CANCELLED', flows: MEMBER_ORIGINATED },
    peer_cancelled: { to: 'CANCELLED', flows: ['TRP_IN'] },
  },
  DECLINED: {},
  CANCELLED: {},
  EXPIRED: {},
};

/**
 * A refused move carries its explanation for the caller's error. It is a plain value, not an
 * Error: the worker asks about moves that do not apply (a MAIN transaction is never confirmed
 * by delivery) for every delivered message, and capturing a stack each time showed in profiles.
 */
export type TransitionResult = { ok: true; to: State } | { ok: false; from: State; reason: string };

export function transition(from: State, event: TxEvent, flow: Flow): TransitionResult {
  const rule = TABLE[from][event];
  if (!rule?.flows.includes(flow)) {
    return { ok: false, from, reason: describe(from, event, flow) };
  }
  return { ok: true, to: rule.to === 'same' ? from : rule.to };
}

/** The flow a transaction follows: its protocol, refined for NOTIFY and TRP. */
export function flowOf(t: { protocol: Protocol; claimed: boolean; inbound: boolean }): Flow {
  if (t.protocol === 'NOTIFY') return t.claimed ? 'NOTIFY_CLAIMED' : 'NOTIFY';
  if (t.protocol === 'TRP') return t.inbound ? 'TRP_IN' : 'TRP_OUT';
  return t.protocol;
}

const ACTIONS: Record<TxEvent, string> = {
  notified: 'mark as notified',
  data_delivered: 'confirm by delivery',
  confirm: 'confirm',
  approve: 'approve',
  decline: 'decline',
  share_tx_hash: 'share a transaction hash for',
  attach: 'claim',
  cancel: 'cancel',
  expire: 'expire',
  peer_approved: 'approve (by the TRP peer)',
  peer_rejected: 'reject (by the TRP peer)',
  peer_cancelled: 'cancel (by the TRP peer)',
};

const FLOW_NAMES: Record<Flow, string> = {
  MAIN: 'MAIN',
  BASIC: 'BASIC',
  NOTIFY: 'NOTIFY',
  NOTIFY_CLAIMED: 'claimed NOTIFY',
  TRP_OUT: 'outbound TRP',
  TRP_IN: 'inbound TRP',
};

function describe(from: State, event: TxEvent, flow: Flow): string {
  if ((FINAL_STATES as readonly string[]).includes(from)) {
    return `The transaction is ${from}; a ${from.toLowerCase()} transaction cannot be processed again.`;
  }
  const somewhere = STATES.some((s) => TABLE[s][event]?.flows.includes(flow));
  if (!somewhere) {
    return `Cannot ${ACTIONS[event]} a ${FLOW_NAMES[flow]} transaction; the transaction is ${from}.`;
  }
  return `Cannot ${ACTIONS[event]} a transaction in state ${from}; the transaction is ${from}.`;
}
