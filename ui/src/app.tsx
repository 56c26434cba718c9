/**
 * The shell: sign-in, then the participant's or the operator's views under one header and
 * navigation. Route changes move focus to the new page's heading (views put it there). The
 * header says who is signed in, and marks a read-only key's session; the operator's navigation
 * shows how many applications wait for review, an organization's what needs its action (to
 * confirm, to review, failing), each a link to the list of exactly those transfers.
 * The pages that e-mailed links open (`/claim/<token>`, `/credentials/<token>`) are the same
 * bundle without any session: `Root` picks them by the path.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { forgetKey, storedKey, storeKey } from './api.js';
import { chooseZone, currentZone } from './format.js';
import { focusPolicy } from './hooks.js';
import { linkPage, navigate, useRoute } from './router.js';
import {
  AnnounceContext,
  accessLabel,
  currentSession,
  type May,
  mayOpen,
  RefreshSessionContext,
  type Session,
  SessionContext,
  signInAsPerson,
  signInWithKey,
  signOutAtHub,
  UpdateMeContext,
} from './session.js';
import { MyAccount } from './views/account.js';
import { AuditTrail } from './views/audit.js';
import { ClaimPage } from './views/claim.js';
import { CounterpartyDirectory } from './views/counterparties.js';
import { CredentialsPage } from './views/credentials.js';
import { DeliveryHealth } from './views/deliveries.js';
import { InvitationPage } from './views/invitation.js';
import { Ivms101Check } from './views/ivms101-check.js';
import {
  OperatorApplications,
  PendingApplicationsContext,
  usePendingCount,
} from './views/operator-applications.js';
import { OperatorEmails } from './views/operator-emails.js';
import { OperatorOperators } from './views/operator-operators.js';
import { OperatorOrganization } from './views/operator-organization.js';
import { OperatorOrganizations } from './views/operator-organizations.js';
import { OperatorOverview } from './views/operator-overview.js';
import { OperatorTransactions } from './views/operator-transactions.js';
import { OperatorTrpPeers } from './views/operator-trp-peers.js';
import { PeoplePage } from './views/people.js';
import { QueueNav } from './views/queue.js';
import { RulesPage } from './views/rules.js';
import { Settings } from './views/settings.js';
import { SignIn, type SignInRequest } from './views/sign-in.js';
import { TransactionRoute } from './views/transaction-ref.js';
import { TransactionList } from './views/transactions.js';
import { TravelAddresses } from './views/travel-addresses.js';

interface NavItem {
  route: string;
  label: string;
  /** What a person's role needs for the page (keys see every page of their kind). */
  needs?: May;
  /** Only for a signed-in person (their own account). */
  person?: true;
}

const ORG_NAV: NavItem[] = [
  { route: 'inbox', label: 'Inbox' },
  { route: 'outbox', label: 'Outbox' },
  { route: 'travel-addresses', label: 'Travel addresses' },
  { route: 'rules', label: 'Rules' },
  { route: 'deliveries', label: 'Delivery health' },
  { route: 'counterparties', label: 'Counterparties' },
  { route: 'ivms101', label: 'IVMS101 check' },
  { route: 'audit', label: 'Audit trail' },
  { route: 'settings', label: 'Settings', needs: 'admin' },
  { route: 'people', label: 'People', needs: 'admin' },
  { route: 'account', label: 'My account', person: true },
];

const OPERATOR_NAV: NavItem[] = [
  { route: 'overview', label: 'Overview' },
  { route: 'transactions', label: 'Transactions' },
  { route: 'organizations', label: 'Organizations' },
  { route: 'applications', label: 'Applications' },
  { route: 'operators', label: 'Operators' },
  { route: 'emails', label: 'E-mails' },
  { route: 'ivms101', label: 'IVMS101 check' },
  { route: 'trp-peers', label: 'TRP peers' },
  { route: 'audit', label: 'Audit trail' },
  { route: 'people', label: 'People', needs: 'admin' },
  { route: 'account', label: 'My account', person: true },
];

/** What a person who must enrol a second factor sees: nothing else works until then. */
const ENROL_NAV: NavItem[] = [{ route: 'account', label: 'My account' }];

/** The pages of the session's kind that it may open. */
function navOf(session: Session): NavItem[] {
  if (session.kind === 'enrol') return ENROL_NAV;
  return (session.kind === 'operator' ? OPERATOR_NAV : ORG_NAV).filter(
    (item) => (!item.person || session.person !== null) && (!item.needs || mayOpen(session, item.needs)),
  );
}

/** The dashboard, or the public page of an e-mailed link (no session there, whatever the tab holds). */
export function Root() {
  const link = linkPage(window.location.pathname);
  if (!link) return <App />;
  return (
    <Announcer>
      {link.page === 'claim' ? (
        <ClaimPage token={link.token} />
      ) : link.page === 'invitation' ? (
        <InvitationPage token={link.token} />
      ) : (
        <CredentialsPage token={link.token} />
      )}
    </Announcer>
  );
}

/** The page's polite live region, and `useAnnounce()` to say something in it. */
function Announcer({ children }: { children: ComponentChildren }) {
  const [announcement, setAnnouncement] = useState('');
  const announce = useCallback((message: string) => {
    // Clearing first makes screen readers repeat an identical message.
    setAnnouncement('');
    window.setTimeout(() => setAnnouncement(message), 50);
  }, []);
  return (
    <AnnounceContext.Provider value={announce}>
      <div class="sr-only" role="status" aria-live="polite">
        {announcement}
      </div>
      {children}
    </AnnounceContext.Provider>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(true);
  const [signedOutReason, setSignedOutReason] = useState<string | null>(null);
  // Which sign-in the callbacks belong to: a late 401 of an ended session must not end the next.
  const generation = useRef(0);

  const signOut = useCallback((reason: string | null = null) => {
    generation.current += 1;
    forgetKey();
    setSession(null);
    setSignedOutReason(reason);
    if (window.location.hash) history.replaceState(null, '', window.location.pathname);
  }, []);

  /** What a later 401 does to the session that is starting now. */
  const endsOn401 = useCallback(
    (reason: string) => {
      const mine = generation.current + 1;
      return () => {
        if (generation.current === mine) signOut(reason);
      };
    },
    [signOut],
  );

  const begin = useCallback((s: Session) => {
    generation.current += 1;
    setSignedOutReason(null);
    setSession(s);
  }, []);

  const startWithKey = useCallback(
    async (key: string) => {
      const s = await signInWithKey(key, endsOn401('The hub no longer accepts this key; sign in again.'));
      storeKey(key);
      begin(s);
    },
    [begin, endsOn401],
  );

  const sessionEnded =
    'Your session has ended (signed out, timed out, or your access was removed); sign in again.';

  const signInByHand = useCallback(
    async (how: SignInRequest) => {
      focusPolicy.moveToNewView = true;
      if (how.kind === 'key') return startWithKey(how.key);
      const s = await signInAsPerson(how.credentials, endsOn401(sessionEnded));
      begin(s);
      if (s.kind === 'enrol') navigate('account');
    },
    [startWithKey, begin, endsOn401],
  );

  /** Reads the session again from the cookie (after enrolling a second factor, say). */
  const refresh = useCallback(async () => {
    const s = await currentSession(endsOn401(sessionEnded));
    if (s) begin(s);
    else signOut(sessionEnded);
  }, [begin, endsOn401, signOut]);

  useEffect(() => {
    // A tab holding a key keeps it; otherwise the browser's session cookie may already be signed in.
    const key = storedKey();
    const restore = key
      ? startWithKey(key).catch(() => forgetKey())
      : currentSession(endsOn401(sessionEnded)).then((s) => {
          if (s) begin(s);
        });
    restore.catch(() => {}).finally(() => setRestoring(false));
  }, [startWithKey, begin, endsOn401]);

  const end = useCallback(async () => {
    // The hub first, so that the sign-in page shows only once the session is over everywhere.
    if (session) await signOutAtHub(session);
    signOut();
  }, [session, signOut]);

  return (
    <Announcer>
      {restoring ? (
        <p class="muted center">Signing in…</p>
      ) : session ? (
        <SessionContext.Provider value={session}>
          <RefreshSessionContext.Provider value={refresh}>
            <UpdateMeContext.Provider
              value={(me) => setSession((s) => (s?.kind === 'org' ? { ...s, me } : s))}
            >
              <Shell session={session} onSignOut={end} />
            </UpdateMeContext.Provider>
          </RefreshSessionContext.Provider>
        </SessionContext.Provider>
      ) : (
        <SignIn onSignIn={signInByHand} notice={signedOutReason} />
      )}
    </Announcer>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const nav = navOf(session);
  const section = route[0] ?? nav[0]!.route;
  const allowed = route[0] === undefined || nav.some((item) => item.route === route[0]) || !hidden(route[0]);
  const pending = usePendingCount(session);
  // Every printed time follows this choice (format.ts); changing it renders the views again.
  const [zone, setZone] = useState(currentZone);
  const switchZone = () => {
    const next = zone === 'utc' ? 'local' : 'utc';
    chooseZone(next);
    setZone(next);
  };

  return (
    <PendingApplicationsContext.Provider value={pending}>
      <div class="shell">
        <button type="button" class="skip-link" onClick={() => main.current?.focus()}>
          Skip to content
        </button>
        <header class="topbar">
          <div class="brand">
            <span class="logo" aria-hidden="true" />
            <span>Travel Rule Hub</span>
          </div>
          <Who session={session} />
          <button
            type="button"
            class="secondary on-dark zone-switch"
            aria-pressed={zone === 'utc'}
            title="Show every time in UTC instead of your local time zone"
            onClick={switchZone}
          >
            Times in UTC
          </button>
          <button type="button" class="secondary on-dark" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <nav class="tabs" aria-label="Main">
          <ul>
            {nav.map((item) => {
              // The badge is a number on the tab; screen readers hear what it counts instead.
              const count = item.route === 'applications' ? pending.count : null;
              return (
                <li key={item.route}>
                  <a href={`#/${item.route}`} aria-current={section === item.route ? 'page' : undefined}>
                    {item.label}
                    {count ? (
                      <>
                        <span class="nav-badge" aria-hidden="true">
                          {count}
                        </span>
                        <span class="sr-only"> ({count} waiting)</span>
                      </>
                    ) : null}
                  </a>
                </li>
              );
            })}
          </ul>
          <QueueNav session={session} />
        </nav>
        <main ref={main} id="main" tabIndex={-1}>
          {!allowed ? (
            <NotAllowed />
          ) : session.kind === 'enrol' ? (
            <MyAccount />
          ) : session.kind === 'operator' ? (
            <OperatorRoutes route={route} />
          ) : (
            <OrgRoutes route={route} />
          )}
        </main>
      </div>
    </PendingApplicationsContext.Provider>
  );
}

/** Pages some sessions may not open: a link to one shows why instead of a failing page. */
const GUARDED = new Set(['settings', 'people', 'account']);
const hidden = (route: string) => GUARDED.has(route);

function Who({ session }: { session: Session }) {
  let who = '';
  // The kind of access, unless it is the plain one of its sign-in (an operator key, a full key).
  let tag: string | null = accessLabel(session);
  const person = session.person;
  if (person) {
    const team =
      session.kind === 'org' ? session.me.name : session.kind === 'operator' ? 'Hub operator' : null;
    who = team ? `${person.name} · ${team}` : person.name;
  } else if (session.kind === 'operator') {
    who = `Hub operator · ${session.operator ? session.operator.name : 'bootstrap key'}`;
    tag = null;
  } else if (session.kind === 'org') {
    who = `${session.me.name} · ${session.me.vaspDid}`;
    if (session.scope === 'full') tag = null;
  }
  return (
    <p class="who">
      <span class="sr-only">Signed in as </span>
      {who}
      {tag ? <span class="scope-tag">{tag}</span> : null}
    </p>
  );
}

function OrgRoutes({ route }: { route: string[] }) {
  switch (route[0]) {
    case undefined:
    case 'inbox':
      return <TransactionList key="inbox" party="beneficiary" />;
    case 'outbox':
      return <TransactionList key="outbox" party="originator" />;
    case 'queue':
      return <TransactionList key="queue" party="any" />;
    case 'tx':
      return route[1] ? <TransactionRoute key={route[1]} transactionRef={route[1]} /> : <NotFound />;
    case 'travel-addresses':
      return <TravelAddresses />;
    case 'rules':
      return <RulesPage />;
    case 'deliveries':
      return <DeliveryHealth />;
    case 'counterparties':
      return <CounterpartyDirectory />;
    case 'ivms101':
      return <Ivms101Check />;
    case 'audit':
      return <AuditTrail />;
    case 'settings':
      return <Settings />;
    case 'people':
      return <PeoplePage />;
    case 'account':
      return <MyAccount />;
    default:
      return <NotFound />;
  }
}

function OperatorRoutes({ route }: { route: string[] }) {
  switch (route[0]) {
    case undefined:
    case 'overview':
      return <OperatorOverview />;
    case 'transactions':
      return <OperatorTransactions filter={route[1] ?? ''} />;
    case 'organizations':
      return route[1] ? <OperatorOrganization key={route[1]} id={route[1]} /> : <OperatorOrganizations />;
    case 'applications':
      return <OperatorApplications />;
    case 'operators':
      return <OperatorOperators />;
    case 'emails':
      return <OperatorEmails />;
    case 'ivms101':
      return <Ivms101Check />;
    case 'trp-peers':
      return <OperatorTrpPeers />;
    case 'audit':
      return <AuditTrail />;
    case 'people':
      return <PeoplePage />;
    case 'account':
      return <MyAccount />;
    default:
      return <NotFound />;
  }
}

function NotAllowed() {
  return (
    <section>
      <h1 tabIndex={-1}>Not open to you</h1>
      <p>
        Your role does not include this page. <a href="#/">Go to the start page</a>.
      </p>
    </section>
  );
}

function NotFound() {
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no such page. <a href="#/">Go to the start page</a>.
      </p>
    </section>
  );
}
