/**
 * The confirmation step of a command whose effect reaches past this hub (Confirm sends personal
 * data, Share hash ends the right to cancel, Verify vouches for a name): a modal dialog that says
 * what will happen, before anything is sent.
 *
 * Accessible by construction: the native `<dialog>` opened with `showModal()` makes the rest of
 * the page inert and answers Escape with `cancel`; focus starts on the safe choice ("Go back"), Tab
 * and Shift+Tab cycle inside the dialog, and closing returns the focus to the element that opened
 * it. The dialog is named by its title and described by its text.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmStep {
  /** The dialog's title, a question ("Send the personal data?"). */
  title: string;
  /** What will happen, in plain words. */
  body: ComponentChildren;
  /** The button that goes ahead ("Yes, confirm and send"). */
  yes: string;
  /** The button that goes back; "Go back" by default. */
  back?: string;
  yesClass?: string;
}

export function ConfirmDialog({
  id,
  step,
  open,
  onYes,
  onBack,
}: {
  /** Gives the ids: `<id>-title`, `<id>-body`. */
  id: string;
  step: ConfirmStep;
  open: boolean;
  onYes: () => void;
  onBack: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const back = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      back.current?.focus();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);

  // Closing by any way (Escape, a button, the page moving on) gives the focus back to the opener.
  const onClose = () => {
    const to = opener.current;
    opener.current = null;
    if (to instanceof HTMLElement && to.isConnected) window.setTimeout(() => to.focus(), 0);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Tab' || !dialog.current) return;
    const focusable = [...dialog.current.querySelectorAll<HTMLElement>('button:not([disabled])')];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={dialog}
      class="confirm-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onCancel={(e) => {
        e.preventDefault();
        onBack();
      }}
      onClose={onClose}
      onKeyDown={onKeyDown}
    >
      <h2 id={`${id}-title`}>{step.title}</h2>
      <div id={`${id}-body`} class="confirm-dialog-body">
        {step.body}
      </div>
      <div class="confirm-dialog-buttons">
        <button ref={back} type="button" class="secondary" onClick={onBack}>
          {step.back ?? 'Go back'}
        </button>
        <button type="button" class={step.yesClass} onClick={onYes}>
          {step.yes}
        </button>
      </div>
    </dialog>
  );
}
