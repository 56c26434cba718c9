import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Calls `tick` every `everyMs` while the tab is visible (live refresh by polling), restarting
 * when `deps` change. Always calls the latest `tick`; its failures are the caller's to show.
 */
export function usePoll(tick: () => Promise<void>, everyMs: number, deps: unknown[]): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const run = async () => {
      if (!document.hidden) {
        try {
          await latest.current();
        } catch {
          // the view shows its own errors; polling goes on
        }
      }
      if (!stopped) timer = window.setTimeout(run, everyMs);
    };
    timer = window.setTimeout(run, everyMs);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, deps);
}

/**
 * Whether a new view takes the focus. Not on a fresh page load (focus stays at the start of
 * the document, where the skip link is), but after signing in and after every navigation, so
 * keyboard and screen-reader users land on the new page's heading.
 */
export const focusPolicy = { moveToNewView: false };

/** Moves focus to the element (a page heading) once it exists, per focusPolicy. */
export function useFocusOnMount<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (focusPolicy.moveToNewView) ref.current?.focus();
  }, [key]);
  return ref;
}

/**
 * A command behind a button or a form: `busy` while it runs, its failure in `error` (cleared
 * when it runs again) for the view to show. `setError` lets a view report a load's failure there.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (command: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await command();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
