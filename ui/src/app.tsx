/**
 * The shell: sign-in, then the participant's or the operator's views under one header and
 * navigation. Route changes move focus to the new page's heading (views put it there). The
 * header says who is signed in, and marks a read-only key's session; the operator's navigation
 * shows how many applications wait for review.
 * The pages that e-mailed links open (`/claim/<token>`, `/credentials/<token>`) are the same
 * bundle without any session: `Root` picks them by the path.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { forgetKey, storedKey, storeKey } from './api.js';
import { focusPolicy } from './hooks.js';
import { linkPage, useRoute } from './router.js';
import { AnnounceContext, type Session, SessionContext, signIn, UpdateMeContext } from './session.js';
import { AuditTrail } from './views/audit.js';
import { ClaimPage } from './views/claim.js';
import { CredentialsPage } from './views/credentials.js';
import { DeliveryHealth } from './views/deliveries.js';
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
import { OperatorTrpPeers } from './views/operator-trp-peers.js';
import { RulesPage } from './views/rules.js';
import { Settings } from './views/settings.js';
import { SignIn } from './views/sign-in.js';
import { TransactionPage } from './views/transaction.js';
import { TransactionList } from './views/transactions.js';
import { TravelAddresses } from './views/travel-addresses.js';

interface NavItem {
  route: string;
  label: string;
}

const ORG_NAV: NavItem[] = [
  { route: 'inbox', label: 'Inbox' },
  { route: 'outbox', label: 'Outbox' },
  { route: 'travel-addresses', label: 'Travel addresses' },
  { route: 'rules', label: 'Rules' },
  { route: 'deliveries', label: 'Delivery health' },
  { route: 'ivms101', label: 'IVMS101 check' },
  { route: 'audit', label: 'Audit trail' },
  { route: 'settings', label: 'Settings' },
];

const OPERATOR_NAV: NavItem[] = [
  { route: 'overview', label: 'Overview' },
  { route: 'organizations', label: 'Organizations' },
  { route: 'applications', label: 'Applications' },
  { route: 'operators', label: 'Operators' },
  { route: 'emails', label: 'E-mails' },
  { route: 'ivms101', label: 'IVMS101 check' },
  { route: 'trp-peers', label: 'TRP peers' },
  { route: 'audit', label: 'Audit trail' },
];

/** The dashboard, or the public page of an e-mailed link (no session there, whatever the tab holds). */
export function Root() {
  const link = linkPage(window.location.pathname);
  if (!link) return <App />;
  return (
    <Announcer>
      {link.page === 'claim' ? <ClaimPage token={link.token} /> : <CredentialsPage token={link.token} />}
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
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [signedOutReason, setSignedOutReason] = useState<string | null>(null);

  const signOut = useCallback((reason: string | null = null) => {
    forgetKey();
    setSession(null);
    setSignedOutReason(reason);
    if (window.location.hash) history.replaceState(null, '', window.location.pathname);
  }, []);

  const start = useCallback(
    async (key: string) => {
      const s = await signIn(key, () => signOut('The hub no longer accepts this key; sign in again.'));
      storeKey(key);
      setSignedOutReason(null);
      setSession(s);
    },
    [signOut],
  );

  const signInByHand = useCallback(
    (key: string) => {
      focusPolicy.moveToNewView = true;
      return start(key);
    },
    [start],
  );

  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    start(key)
      .catch(() => forgetKey())
      .finally(() => setRestoring(false));
  }, [start]);

  return (
    <Announcer>
      {restoring ? (
        <p class="muted center">Signing in…</p>
      ) : session ? (
        <SessionContext.Provider value={session}>
          <UpdateMeContext.Provider value={(me) => setSession((s) => (s?.kind === 'org' ? { ...s, me } : s))}>
            <Shell session={session} onSignOut={() => signOut()} />
          </UpdateMeContext.Provider>
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
  const nav = session.kind === 'operator' ? OPERATOR_NAV : ORG_NAV;
  const section = route[0] ?? nav[0]!.route;
  const pending = usePendingCount(session);

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
        </nav>
        <main ref={main} id="main" tabIndex={-1}>
          {session.kind === 'operator' ? <OperatorRoutes route={route} /> : <OrgRoutes route={route} />}
        </main>
      </div>
    </PendingApplicationsContext.Provider>
  );
}

function Who({ session }: { session: Session }) {
  if (session.kind === 'operator') {
    return (
      <p class="who">
        <span class="sr-only">Signed in as </span>
        Hub operator · {session.operator ? session.operator.name : 'bootstrap key'}
      </p>
    );
  }
  return (
    <p class="who">
      <span class="sr-only">Signed in as </span>
      {session.me.name} · {session.me.vaspDid}
      {session.scope === 'read' ? <span class="scope-tag">read-only key</span> : null}
    </p>
  );
}

function OrgRoutes({ route }: { route: string[] }) {
  switch (route[0]) {
    case undefined:
    case 'inbox':
      return <TransactionList party="beneficiary" />;
    case 'outbox':
      return <TransactionList party="originator" />;
    case 'tx':
      return route[1] ? <TransactionPage key={route[1]} transactionRef={route[1]} /> : <NotFound />;
    case 'travel-addresses':
      return <TravelAddresses />;
    case 'rules':
      return <RulesPage />;
    case 'deliveries':
      return <DeliveryHealth />;
    case 'ivms101':
      return <Ivms101Check />;
    case 'audit':
      return <AuditTrail />;
    case 'settings':
      return <Settings />;
    default:
      return <NotFound />;
  }
}

function OperatorRoutes({ route }: { route: string[] }) {
  switch (route[0]) {
    case undefined:
    case 'overview':
      return <OperatorOverview />;
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
    default:
      return <NotFound />;
  }
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
