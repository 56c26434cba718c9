/**
 * The frame of a transaction command's form (confirm, approve, decline, share the hash, cancel):
 * heading, what it does, its fields, its failure and its submit button, and for a command that
 * cannot be undone a second question. The question is in the page, not a dialog, so keyboard and
 * screen-reader users stay in place: it takes the focus, the fields are locked while it is asked,
 * and going back returns the focus to the button that asked it. A command whose effect reaches
 * past the hub (Confirm sends personal data, Share hash ends the right to cancel) asks in a modal
 * dialog instead (`dialog`, components/confirm-dialog.tsx). A failure puts the form back to
 * its fields. `useCommand` runs the command and treats the hub's 409 as news, not as an error.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldErrors, HubProblem, type Transaction } from '../api.js';
import { useAction } from '../hooks.js';
import { useAnnounce } from '../session.js';
import { ConfirmDialog, type ConfirmStep } from './confirm-dialog.js';
import { ErrorNote } from './ui.js';

export interface FormProps {
  tx: Transaction;
  onChanged: () => void;
  onConflict: (err: unknown) => void;
}

/**
 * Runs a command. A 409 means the state moved on (the counterparty acted first, or a hash is
 * already set): it is reported in the hub's own words and the page reloads the state.
 */
export function useCommand({ onChanged, onConflict }: FormProps) {
  const announce = useAnnounce();
  const { busy, error, run: runAction } = useAction();
  const run = (command: () => Promise<unknown>, done: string) => {
    onConflict(null);
    return runAction(async () => {
      try {
        await command();
      } catch (err) {
        if (!(err instanceof HubProblem && err.status === 409)) throw err;
        onConflict(err);
        onChanged();
        return;
      }
      announce(done);
      onChanged();
    });
  };
  return { busy, error, run };
}

/** The second question of a command that cannot be undone. */
export interface SecondQuestion {
  question: ComponentChildren;
  /** The button that goes ahead. */
  yes: string;
  /** The button that goes back to the form. */
  back: string;
  /** Of the "yes" button; the form's `buttonClass` when not given. */
  yesClass?: string;
}

export function ActionForm({
  name,
  title,
  intro,
  command,
  button,
  busyButton,
  buttonClass,
  ready = true,
  check,
  confirm,
  dialog,
  showsFieldErrors = false,
  onSubmit,
  children,
}: {
  /** Gives the ids: `<name>-heading`, `<name>-question`. */
  name: string;
  title: string;
  intro: ComponentChildren;
  command: { busy: boolean; error: unknown };
  button: string;
  busyButton: string;
  buttonClass?: string;
  /** Whether the fields are filled in enough to submit. */
  ready?: boolean;
  /** Checks the fields before anything else (and shows their problems); false stops there. */
  check?: () => boolean;
  confirm?: SecondQuestion;
  /** Asks in a modal dialog what will happen before the command is sent. */
  dialog?: ConfirmStep;
  /** The fields show the hub's problems with them, so the failure note leaves those out. */
  showsFieldErrors?: boolean;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  const [asking, setAsking] = useState(false);
  const [dialogOpen, setDialogOpen] = useState(false);
  const question = useRef<HTMLParagraphElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) question.current?.focus();
  }, [asking]);
  // A refusal sends the form back to its fields, where it can be put right.
  useEffect(() => {
    if (command.error) setAsking(false);
  }, [command.error]);

  const submit = (e: Event) => {
    e.preventDefault();
    if (check && !asking && !check()) return;
    if (dialog) setDialogOpen(true);
    else if (confirm && !asking) setAsking(true);
    else onSubmit();
  };
  const back = () => {
    setAsking(false);
    window.setTimeout(() => start.current?.focus(), 0);
  };
  const hideNote = showsFieldErrors && Object.keys(fieldErrors(command.error)).length > 0;
  return (
    <form class="action" onSubmit={submit} aria-labelledby={`${name}-heading`} noValidate={Boolean(check)}>
      <h3 id={`${name}-heading`}>{title}</h3>
      <p class="small">{intro}</p>
      <fieldset class="plain" disabled={asking}>
        {children}
      </fieldset>
      {hideNote ? null : <ErrorNote error={command.error} prefix="Failed:" />}
      {confirm && asking ? (
        <div class="confirm-row confirm-danger">
          <p ref={question} tabIndex={-1} id={`${name}-question`}>
            {confirm.question}
          </p>
          <button
            type="submit"
            class={confirm.yesClass ?? buttonClass}
            disabled={command.busy}
            aria-describedby={`${name}-question`}
          >
            {command.busy ? busyButton : confirm.yes}
          </button>
          <button type="button" class="secondary" onClick={back} disabled={command.busy}>
            {confirm.back}
          </button>
        </div>
      ) : (
        <button ref={start} type="submit" class={buttonClass} disabled={command.busy || !ready}>
          {command.busy ? busyButton : button}
        </button>
      )}
      {dialog ? (
        <ConfirmDialog
          id={`${name}-dialog`}
          step={dialog}
          open={dialogOpen}
          onBack={() => setDialogOpen(false)}
          onYes={() => {
            setDialogOpen(false);
            onSubmit();
          }}
        />
      ) : null}
    </form>
  );
}
