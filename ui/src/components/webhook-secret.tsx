/**
 * Rotating an organization's webhook signing secret, after a confirmation: the new secret is
 * shown once, with how long the previous one keeps signing. Used by the operator's organization
 * page and the organization's own settings, which differ in the endpoint behind `rotate`.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { RotatedSecret } from '../api.js';
import { formatTime } from '../format.js';
import { useAction } from '../hooks.js';
import { ErrorNote, OnceSecret } from './ui.js';

export function WebhookSecretPanel({
  headingId,
  title,
  rotate,
  children,
}: {
  headingId: string;
  title: string;
  rotate: () => Promise<RotatedSecret>;
  /** What rotating means, under the heading. */
  children: ComponentChildren;
}) {
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<RotatedSecret | null>(null);
  const { error, run } = useAction();
  const onRotate = () =>
    run(async () => {
      setRotated(await rotate());
      setConfirming(false);
    });
  return (
    <section class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
      {rotated ? (
        <OnceSecret label="New webhook secret" value={rotated.webhookSecret}>
          {rotated.previousSecretValidUntil
            ? ` The previous secret signs until ${formatTime(rotated.previousSecretValidUntil)}.`
            : ''}
        </OnceSecret>
      ) : null}
      {confirming ? (
        <div class="confirm-row">
          <span>Issue a new secret now?</span>
          <button type="button" onClick={onRotate}>
            Yes, rotate
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" class="secondary" onClick={() => setConfirming(true)}>
          Rotate secret
        </button>
      )}
      <ErrorNote error={error} />
    </section>
  );
}
