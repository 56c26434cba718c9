/** A counter that is also a link to the list it counts (the operator overview's cards). */
export function LinkCounter({
  label,
  value,
  href,
  tone = 'plain',
}: {
  label: string;
  value: number | string | undefined;
  href: string;
  tone?: 'ok' | 'warn' | 'bad' | 'plain';
}) {
  return (
    <a class={`counter counter-${tone}`} href={href}>
      <span class="counter-value">{value ?? '…'}</span>
      <span class="counter-label">{label}</span>
    </a>
  );
}
