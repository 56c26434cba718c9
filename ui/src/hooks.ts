import { useEffect, useRef } from 'preact/hooks';

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

/** Moves focus to the element (e.g. a page heading after navigation) once it exists. */
export function useFocusOnMount<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [key]);
  return ref;
}
