/**
 * The frame of the public pages that e-mailed links open (claim, credentials): the hub's name,
 * one main landmark, a footer; no navigation and no session. Sets the document's title.
 */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

export function PublicPage({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Travel Rule Hub`;
  }, [title]);
  return (
    <div class="public">
      <header class="topbar">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          <span>Travel Rule Hub</span>
        </div>
      </header>
      <main id="main" class="public-main">
        {children}
      </main>
      <footer class="public-foot">
        <p>
          Travel Rule Hub carries travel rule data (FATF Recommendation 16) between virtual asset service
          providers. Members use the <a href="/ui/">compliance dashboard</a>.
        </p>
      </footer>
    </div>
  );
}

/** What every page says of a link the hub no longer accepts, never why (used, expired, unknown). */
export function InvalidLink({ children }: { children?: ComponentChildren }) {
  return (
    <div class="note note-info" role="note" aria-label="Link not valid">
      <p>
        <strong>This link is not valid any more.</strong>
      </p>
      {children}
    </div>
  );
}
