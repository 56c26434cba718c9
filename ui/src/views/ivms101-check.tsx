/**
 * The IVMS101 checker (SPEC §18): an integration engineer pastes a payload in any dialect and sees
 * the version the hub detects, every problem at the path as pasted, and what the hub keeps and
 * delivers, written in either version. Nothing is stored; the payload stays in this page.
 */
import { useState } from 'preact/hooks';
import { unwrap } from '../api.js';
import { Field } from '../components/forms.js';
import { ErrorNote, PageHead } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useSession } from '../session.js';

interface CheckResult {
  valid: boolean;
  detectedVersion: '2020' | '2023';
  normalized: Record<string, unknown>;
  errors: { path: string; message: string }[];
  truncated?: true;
}

export function Ivms101Check() {
  const { client } = useSession();
  const [text, setText] = useState('');
  const [version, setVersion] = useState<'detected' | '2020' | '2023'>('detected');
  const [parseError, setParseError] = useState<string | null>(null);
  const [result, setResult] = useState<CheckResult | null>(null);
  const { busy, error, run } = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (err) {
      setParseError(`This is not JSON: ${(err as Error).message}`);
      setResult(null);
      return;
    }
    setParseError(null);
    run(async () => {
      setResult(
        await unwrap(
          client.POST('/v1/ivms101/check', {
            body: { payload, ...(version === 'detected' ? {} : { version }) },
          }),
        ),
      );
    });
  };

  return (
    <section aria-labelledby="check-heading">
      <PageHead id="check-heading" title="IVMS101 check">
        <p class="muted small">
          Paste an IVMS101 payload as any network writes it (2020 or 2023, camelCase, snake_case or
          PascalCase, protobuf enum names). The hub shows how it reads it; nothing is stored.
        </p>
      </PageHead>
      <form class="panel" onSubmit={submit} aria-labelledby="check-form-heading" noValidate>
        <h2 id="check-form-heading">Payload</h2>
        <Field
          id="ivms101-payload"
          label="IVMS101 JSON"
          error={parseError ?? undefined}
          hint="The pii of an initiation, or a whole IVMS101 message (a { ivms101: … } wrapper is fine)."
          wide
        >
          {(aria) => (
            <textarea
              {...aria}
              class="mono"
              rows={14}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
              spellcheck={false}
              placeholder={'{ "originator": { … }, "beneficiary": { … } }'}
            />
          )}
        </Field>
        <Field id="ivms101-show-as" label="Show the normalised form as">
          {(aria) => (
            <select
              {...aria}
              value={version}
              onChange={(e) => setVersion(e.currentTarget.value as typeof version)}
            >
              <option value="detected">the detected version</option>
              <option value="2020">IVMS101 2020 (the hub’s interface shape)</option>
              <option value="2023">IVMS101.2023</option>
            </select>
          )}
        </Field>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy || text.trim() === ''}>
          {busy ? 'Checking…' : 'Check'}
        </button>
      </form>
      {result ? (
        <CheckOutcome result={result} shownAs={version === 'detected' ? result.detectedVersion : version} />
      ) : null}
    </section>
  );
}

function CheckOutcome({ result, shownAs }: { result: CheckResult; shownAs: string }) {
  return (
    <section class="panel" aria-labelledby="check-result-heading" aria-live="polite">
      <h2 id="check-result-heading">Result</h2>
      <p class={`note ${result.valid ? 'note-ok' : 'note-error'}`} role="status">
        <strong>{result.valid ? 'Valid.' : 'Not valid.'}</strong> Detected version: IVMS101{' '}
        {result.detectedVersion === '2023' ? '.2023' : '2020'}.
        {result.valid ? ' Initiate accepts this pii.' : ` ${result.errors.length} problem(s) to fix.`}
      </p>
      {result.errors.length > 0 ? (
        <table class="list">
          <caption class="sr-only">Problems</caption>
          <thead>
            <tr>
              <th scope="col">Path (as pasted)</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {result.errors.map((p) => (
              <tr key={`${p.path} ${p.message}`}>
                <td class="mono break">{p.path.replace(/^\/payload/, '') || '/'}</td>
                <td>{p.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {result.truncated ? <p class="muted small">More problems were found than listed.</p> : null}
      <h3>Normalised ({shownAs === '2023' ? 'IVMS101.2023' : 'IVMS101 2020'})</h3>
      <p class="small muted">
        What a member with this version receives. VASPs the sender leaves out are filled in from the directory
        when the hub delivers.
      </p>
      <pre class="json" data-testid="ivms101-normalized">
        {JSON.stringify(result.normalized, null, 2)}
      </pre>
    </section>
  );
}
