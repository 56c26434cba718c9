/**
 * A button that copies a value to the clipboard and says so ("Copied", and in the live region).
 * Where the page may not write the clipboard, it selects the element `selectId` names instead, so
 * the value can be copied by hand.
 */
import { useState } from 'preact/hooks';
import { useAnnounce } from '../session.js';

export function CopyButton({
  value,
  label,
  selectId,
  what,
}: {
  value: string;
  /** What it copies, for the button's accessible name: "Copy <label>", e.g. "travel address ta2W2H…". */
  label: string;
  /** The element that shows the value, selected when the clipboard is out of reach. */
  selectId: string;
  /** Said once copied: "<what> copied." */
  what: string;
}) {
  const announce = useAnnounce();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      announce(`${what} copied.`);
    } catch {
      const el = document.getElementById(selectId);
      if (el instanceof HTMLInputElement) el.select();
      else if (el) window.getSelection()?.selectAllChildren(el);
      announce(`${what} selected: copy it with your keyboard or menu.`);
    }
  };
  const text = copied ? 'Copied' : 'Copy';
  return (
    <button type="button" class="secondary small-button" onClick={copy} aria-label={`${text} ${label}`}>
      {text}
    </button>
  );
}
