/**
 * One transaction: its fields, the timeline from `history` (with events that left the status as
 * it was, such as a beneficiary joining), a final state said plainly, whether the message to the
 * counterparty got through (the `delivery` summary), the actions the caller's role and the state
 * allow (and only those), the caller's own review (state, assignee, notes), the audited personal
 * data view, and the webhooks owed to the caller
 * for it with every attempt. Polls so the counterparty's moves show up. A TRP transfer's
 * counterparty is the TRP peer (SPEC §16), named as the hub knows it wherever the page names the
 * other side: the facts, the timeline and the final note.
 */

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Delivery, HubProblem, type Role, type Transaction, unwrap } from '../api.js';
import { PeerName } from '../components/counterparty.js';
import { DeliveryList } from '../components/deliveries.js';
import { DeliveryBox } from '../components/delivery-summary.js';
import { NotifyProgress } from '../components/notify-progress.js';
import { ErrorNote, Fact, Loading, PageHead, StatusBadge, Time } from '../components/ui.js';
import { OrgName, useOrgNames } from '../directory.js';
import { historyEventLabel, STATUS_LABELS, shortRef, words } from '../format.js';
import { useAction, usePoll } from '../hooks.js';
import { useMay, useOrg } from '../session.js';
import { isInboundTrp, peerDid, peerName, protocolLabel, type TrpInfo } from '../trp.js';
import { PiiView } from './pii.js';
import { ReviewPanel } from './review-panel.js';
import { TransferCompliance } from './rules.js';
import { TransactionActions } from './transaction-actions.js';
import { POLL_MS } from './transactions.js';

export function TransactionPage({ transactionRef }: { transactionRef: string }) {
  const { client, me } = useOrg();
  const names = useOrgNames();
  const [tx, setTx] = useState<Transaction | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  // A TRP transfer's messages to the peer (SPEC §16); null for other transfers, or until loaded.
  const [trpMessages, setTrpMessages] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const deliveriesOf = async (channel: 'webhook' | 'trp') =>
    (
      await unwrap(
        client.GET('/v1/webhooks/deliveries', {
          params: { query: { transactionRef, channel, limit: '100' } },
        }),
      )
    ).deliveries;
  const load = async () => {
    const path = { transactionRef };
    const [t, d] = await Promise.all([
      unwrap(client.GET('/v1/transactions/{transactionRef}', { params: { path } })),
      deliveriesOf('webhook'),
    ]);
    const m = t.protocol === 'TRP' ? await deliveriesOf('trp') : null;
    setTx(t);
    setDeliveries(d);
    setTrpMessages(m);
    setError(null);
  };
  const reload = () => load().catch(setError);

  useEffect(() => {
    reload();
  }, [transactionRef]);
  usePoll(load, POLL_MS, [transactionRef]);

  if (!tx) {
    return (
      <section>
        <h1>Transaction {shortRef(transactionRef)}</h1>
        {error ? (
          <ErrorNote
            error={error}
            prefix={error instanceof HubProblem && error.status === 404 ? 'Not found:' : ''}
          />
        ) : (
          <Loading what="the transaction" />
        )}
      </section>
    );
  }

  // By organization id: a DID can change after the transaction (the operator may edit it), and
  // the transaction keeps the DIDs it was made with. Only its two parties can see it at all.
  const role: Role =
    tx.beneficiaryVASPid?.toLowerCase() === me.id.toLowerCase() ? 'beneficiary' : 'originator';
  const back = role === 'originator' ? ['#/outbox', 'Outbox'] : ['#/inbox', 'Inbox'];
  const txHash = tx.transactionBlockchainInfo.txHash;
  const destination = tx.transactionBlockchainInfo.destination ?? tx.destination;
  const protocol = protocolLabel(tx.protocol, role);
  // The TRP peer where the hub names it by its DID (or `trp` before it had one); else the directory.
  const peer = peerDid(tx);
  const party = (did: string | null): ComponentChildren =>
    tx.trp && (did === peer || did === 'trp') ? (
      <PeerName peer={tx.trp.peer} />
    ) : (
      <OrgName did={did} names={names} />
    );

  return (
    <article class="transaction" aria-labelledby="tx-heading">
      <p class="crumbs">
        <a href={back[0]}>← {back[1]}</a>
      </p>
      <PageHead
        id="tx-heading"
        title={
          <>
            {protocol} transaction <span class="mono">{shortRef(tx.transactionRef)}</span>
          </>
        }
      >
        <StatusBadge status={tx.status} />
        <p class="muted">
          You are the <strong>{role}</strong>.
        </p>
      </PageHead>
      <ErrorNote error={error} prefix="Could not refresh:" />
      <FinalNote tx={tx} role={role} party={party} />
      <TransferCompliance transactionRef={tx.transactionRef} />

      <div class="columns">
        <section class="panel" aria-labelledby="facts-heading">
          <h2 id="facts-heading">Transfer</h2>
          <dl class="facts">
            <Fact label="Reference">
              <span class="mono break">{tx.transactionRef}</span>
            </Fact>
            <Fact label="Status">{STATUS_LABELS[tx.status]}</Fact>
            <Fact label="Protocol">{protocol}</Fact>
            <Fact label="Asset">{tx.transactionAsset}</Fact>
            <Fact label="Amount">
              <span class="mono">{tx.transactionAmount}</span>{' '}
              <span class="muted small">
                (
                {tx.transactionAssetDecimals === 0
                  ? 'human-readable'
                  : `${tx.transactionAssetDecimals} decimals`}
                )
              </span>
            </Fact>
            <Fact label="Originator VASP">{party(tx.originatorVASPdid)}</Fact>
            <Fact label="Beneficiary VASP">
              {tx.beneficiaryVASPdid ? (
                party(tx.beneficiaryVASPdid)
              ) : (
                <span class="did">{tx.beneficiaryVASPid ?? '—'}</span>
              )}
            </Fact>
            {tx.trp ? <TrpFacts trp={tx.trp} /> : null}
            {tx.transactionBlockchainInfo.origin ? (
              <Fact label="Origin address">
                <span class="mono break">{tx.transactionBlockchainInfo.origin}</span>
              </Fact>
            ) : null}
            <Fact label="Destination address">
              {destination ? (
                <span class="mono break">{destination}</span>
              ) : (
                <span class="muted">
                  {tx.trp && role === 'beneficiary'
                    ? 'not given yet: you give it when you approve'
                    : tx.trp
                      ? `not given yet: ${peerName(tx.trp.peer)} gives it when it approves`
                      : 'not given'}
                </span>
              )}
            </Fact>
            <Fact label="Transaction hash">
              {txHash ? <span class="mono break">{txHash}</span> : <span class="muted">not shared yet</span>}
            </Fact>
            <Fact label="Created">
              <Time iso={tx.createdAt} />
            </Fact>
            <Fact label="Last change">
              <Time iso={tx.updatedAt} />
            </Fact>
          </dl>
          {tx.declineReason ? (
            <div class="note note-error decline-reason" role="note" aria-label="Decline reason">
              <strong>Declined: {words(tx.declineReason.category)}</strong>{' '}
              <code>{tx.declineReason.category}</code>
              <p>{tx.declineReason.description}</p>
            </div>
          ) : null}
        </section>

        <section class="panel" aria-labelledby="timeline-heading">
          <h2 id="timeline-heading">Timeline</h2>
          <ol class="timeline">
            {tx.history.map((h) => (
              <li key={`${h.status}${h.event ?? ''}${h.at}`}>
                <StatusBadge status={h.status} />
                <div>
                  {h.event ? <div class="event">{historyEventLabel(h.event)}</div> : null}
                  <Time iso={h.at} />
                  <div class="small muted">by {h.actor === 'hub' ? 'the hub' : party(h.actor)}</div>
                </div>
              </li>
            ))}
          </ol>
        </section>
      </div>

      <NotifyProgress tx={tx} />

      <PersonalData tx={tx} role={role} />

      <TransactionActions tx={tx} role={role} onChanged={reload} />

      <ReviewPanel tx={tx} onChanged={reload} />

      <DeliveryBox tx={tx} role={role} />

      {tx.trp && trpMessages ? (
        <section class="panel" aria-labelledby="trp-messages-heading">
          <h2 id="trp-messages-heading">TRP messages to {peerName(tx.trp.peer)}</h2>
          <p class="muted small">
            What the hub sent (or tries to send) to the TRP peer about this transfer, over mutual TLS.
          </p>
          {trpMessages.length === 0 ? (
            <p class="empty">No TRP message to the peer for this transaction.</p>
          ) : (
            <DeliveryList deliveries={trpMessages} onChange={reload} />
          )}
        </section>
      ) : null}

      <section class="panel" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Webhooks to you</h2>
        <p class="muted small">
          What the hub delivered (or tries to deliver) to your travel endpoint about this transaction.
        </p>
        {deliveries === null ? (
          <Loading what="deliveries" />
        ) : deliveries.length === 0 ? (
          <p class="empty">No webhook to you for this transaction.</p>
        ) : (
          <DeliveryList deliveries={deliveries} onChange={reload} />
        )}
      </section>
    </article>
  );
}

/**
 * As the hub decides (GET …/pii): the originator may always read it; the beneficiary once the
 * data reached it (CONFIRMED, DECLINED, or cancelled after it was confirmed), and the beneficiary
 * of an inbound TRP transfer from the start, since the data came with the inquiry and is to be
 * screened before approving or declining. A viewer's role does not include personal data at all.
 */
function PersonalData({ tx, role }: { tx: Transaction; role: Role }) {
  const { client, person } = useOrg();
  const mayRead = useMay('pii');
  const [pii, setPii] = useState<Record<string, unknown> | null>(null);
  const { busy, error, run } = useAction();
  const inboundTrp = isInboundTrp(tx, role);
  const wasConfirmed = tx.history.some((h) => h.status === 'CONFIRMED');
  const entitled =
    role === 'originator' ||
    inboundTrp ||
    tx.status === 'CONFIRMED' ||
    tx.status === 'DECLINED' ||
    (tx.status === 'CANCELLED' && wasConfirmed);
  const ended = tx.status === 'CANCELLED' || tx.status === 'EXPIRED';

  const show = () =>
    run(async () => {
      const r = await unwrap(
        client.GET('/v1/transactions/{transactionRef}/pii', {
          params: { path: { transactionRef: tx.transactionRef } },
        }),
      );
      setPii(r.pii);
    });

  return (
    <section class="panel" aria-labelledby="pii-heading">
      <h2 id="pii-heading">Personal data (IVMS101)</h2>
      {tx.piiErasedAt ? (
        <p class="muted" data-testid="pii-erased">
          Erased <Time iso={tx.piiErasedAt} />, under the hub’s retention period or by its operator, together
          with any decline or cancel reason. The transaction’s details and history are kept.
        </p>
      ) : !mayRead ? (
        <p class="muted" data-testid="pii-not-for-role">
          Your role ({person?.role}) does not include personal data: an analyst or admin of your organization
          can show it.
        </p>
      ) : !entitled ? (
        <p class="muted">
          {ended
            ? `Not available to you: the transaction is ${STATUS_LABELS[tx.status]?.toLowerCase()}.`
            : `Available to you once the originator confirms the transaction (status ${STATUS_LABELS.CONFIRMED}).`}
        </p>
      ) : pii ? (
        <>
          <PiiView pii={pii} />
          <button type="button" class="secondary" onClick={() => setPii(null)}>
            Hide personal data
          </button>
        </>
      ) : (
        <>
          <p class="muted small">
            {inboundTrp && tx.status === 'RECEIVER_NOTIFIED'
              ? 'It came with the TRP inquiry: screen it before you approve or decline. '
              : ''}
            Each view is written to the hub’s audit trail.
          </p>
          <button type="button" onClick={show} disabled={busy}>
            {busy ? 'Loading…' : 'Show personal data'}
          </button>
        </>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

/**
 * Cancelled or expired, said where it is seen first: by whom, when and why (when a reason was
 * given), and that it is final. A decline has its reason in the transfer's facts.
 */
function FinalNote({
  tx,
  role,
  party,
}: {
  tx: Transaction;
  role: Role;
  party: (did: string) => ComponentChildren;
}) {
  if (tx.status !== 'CANCELLED' && tx.status !== 'EXPIRED') return null;
  const entry = [...tx.history].reverse().find((h) => h.status === tx.status);
  const cancelledByYou = tx.status === 'CANCELLED' && role === 'originator';
  return (
    <div class="note note-final" role="note" aria-label="Final state">
      <strong>
        {tx.status === 'CANCELLED'
          ? cancelledByYou
            ? 'You cancelled this transfer'
            : 'The originator cancelled this transfer'
          : 'This transfer expired'}
      </strong>
      {entry ? (
        <>
          {' '}
          on <Time iso={entry.at} />
        </>
      ) : null}
      {tx.status === 'CANCELLED' && !cancelledByYou && entry && entry.actor !== 'hub' ? (
        <> ({party(entry.actor)})</>
      ) : null}
      .
      {tx.status === 'CANCELLED' && tx.cancelReason ? (
        <p class="cancel-reason pre-wrap">
          Reason given: <q>{tx.cancelReason}</q>
        </p>
      ) : null}
      <p>
        {tx.status === 'EXPIRED' ? 'It made no progress for the hub’s expiry period. ' : ''}
        This is final: messages not sent yet were withdrawn, and nothing more can happen to it.
      </p>
    </div>
  );
}

/**
 * What the hub knows of a TRP transfer's peer beyond its name: its LEI (from its /identity), the
 * subject of the certificate it sent an inbound inquiry with, and the travel address the transfer
 * went through (the peer's for an outbound one, the member's own for an inbound one).
 */
function TrpFacts({ trp }: { trp: TrpInfo }) {
  const unknown = <span class="muted">not known</span>;
  return (
    <>
      <Fact label="Peer LEI">{trp.peer.lei ? <span class="mono">{trp.peer.lei}</span> : unknown}</Fact>
      {trp.direction === 'inbound' ? (
        <Fact label="Peer certificate">
          {trp.peer.certificateSubject ? (
            <span class="mono break">{trp.peer.certificateSubject}</span>
          ) : (
            unknown
          )}
        </Fact>
      ) : null}
      <Fact label={trp.direction === 'inbound' ? 'Your travel address' : 'Travel address'}>
        {trp.travelAddress ? <span class="mono break">{trp.travelAddress}</span> : unknown}
      </Fact>
    </>
  );
}
