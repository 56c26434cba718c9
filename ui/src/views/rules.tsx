/**
 * Jurisdiction rules (SPEC §15): the table the hub applies, each entry with its legal source, and a
 * "check a transfer" form that sends pasted initiate JSON to the validate dry run (nothing is
 * stored or sent) and shows which rules applied and what is missing. The transaction page shows
 * the rules a transfer was held to and its wallet proof (TransferCompliance).
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError, type HubClient, unwrap } from '../api.js';
import { Field, FormError } from '../components/forms.js';
import { ErrorNote, Fact, Loading, PageHead, TableWrap, Time } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { useMay, useOrg } from '../session.js';

type RulesTable = Awaited<ReturnType<typeof loadTable>>;
type Validation = Awaited<ReturnType<typeof validate>>;
type AppliedRule = Validation['rules'][number];

const loadTable = async (client: HubClient) => unwrap(client.GET('/v1/rules'));
const validate = async (client: HubClient, body: unknown) =>
  unwrap(client.POST('/v1/transactions/validate', { body: body as never }));

function threshold(t: RulesTable['rules'][number]['threshold']): string {
  if (t === null) return 'none: every transfer';
  return `${t.inclusive ? 'from' : 'above'} ${t.amount} ${t.currency}`;
}

function requirement(r: unknown): string {
  if (typeof r === 'string') return r;
  const alternatives = (r as { anyOf: string[][] }).anyOf;
  return `one of: ${alternatives.map((alt) => alt.join(' + ')).join(' | ')}`;
}

export function RulesPage() {
  const { client } = useOrg();
  const [table, setTable] = useState<RulesTable | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    loadTable(client).then(setTable, setError);
  }, []);
  return (
    <section>
      <PageHead id="rules-heading" title="Jurisdiction rules" />
      <p class="muted">
        When your organization or the counterparty has a jurisdiction, a transfer must carry the data its
        rules require; the stricter of the two applies. Set your jurisdiction in Settings.
      </p>
      <CheckTransfer />
      {table ? (
        <RulesTableView table={table} />
      ) : error ? (
        <ErrorNote error={error} />
      ) : (
        <Loading what="the rules" />
      )}
    </section>
  );
}

function RulesTableView({ table }: { table: RulesTable }) {
  return (
    <section class="panel" aria-labelledby="table-heading">
      <h2 id="table-heading">The rules table</h2>
      <p class="small muted">
        {table.fxRates
          ? `Currency rates: base ${table.fxRates.base}, of ${table.fxRates.date}.`
          : 'No currency rates configured: a value in another currency than a threshold’s counts as above it.'}
      </p>
      <TableWrap label="Rules per jurisdiction">
        <table>
          <thead>
            <tr>
              <th scope="col">Jurisdiction</th>
              <th scope="col">Threshold</th>
              <th scope="col">Originator (above)</th>
              <th scope="col">Beneficiary (above)</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {table.rules.map((entry) => (
              <tr key={entry.id}>
                <th scope="row">
                  <span class="mono">{entry.id}</span> {entry.name}
                  {entry.countries ? <div class="small muted">{entry.countries.join(' ')}</div> : null}
                </th>
                <td>{threshold(entry.threshold)}</td>
                <td>{entry.above.originator.map(requirement).join(', ') || 'nothing'}</td>
                <td>{entry.above.beneficiary.map(requirement).join(', ') || 'nothing'}</td>
                <td>
                  {entry.source} <span class="small muted">(in force {entry.date})</span>
                  {entry.note ? <div class="small">{entry.note}</div> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

function CheckTransfer() {
  const { client } = useOrg();
  const canWrite = useMay('act');
  const [text, setText] = useState('');
  const [parseError, setParseError] = useState<string | null>(null);
  const [result, setResult] = useState<Validation | null>(null);
  const { busy, error, run } = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      setParseError(`Not JSON: ${(err as Error).message}`);
      return;
    }
    setParseError(null);
    setResult(null);
    run(async () => setResult(await validate(client, body)));
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="check-heading" noValidate>
      <h2 id="check-heading">Check a transfer</h2>
      <Field
        id="check-json"
        label="Initiate request (JSON)"
        error={parseError ?? undefined}
        hint="The body you would send to POST /v1/transactions/initiate, with transferValue. Nothing is stored or sent."
      >
        {(aria) => (
          <textarea
            {...aria}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            rows={10}
            class="mono"
            spellcheck={false}
          />
        )}
      </Field>
      <FormError error={error} />
      <button type="submit" disabled={busy || !canWrite}>
        {busy ? 'Checking…' : 'Check'}
      </button>
      {canWrite ? null : <p class="small muted">A read-only key cannot run the check (it is a POST).</p>}
      {result ? <ValidationResult result={result} /> : null}
    </form>
  );
}

function ValidationResult({ result }: { result: Validation }) {
  return (
    <div class="check-result" role="status">
      <p>
        <strong>
          {result.valid ? 'Meets the rules.' : `Misses ${result.missing.length} required item(s).`}
        </strong>{' '}
        {result.rules.length === 0
          ? 'No rules apply: neither party has a jurisdiction.'
          : result.regime === 'TRAVEL_RULE'
            ? 'The travel rule applies.'
            : 'Below every threshold.'}
      </p>
      <AppliedRules rules={result.rules} />
      {result.missing.length > 0 ? (
        <ul class="missing">
          {result.missing.map((m) => (
            <li key={m.path}>
              <code>{m.path}</code>: {m.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function AppliedRules({ rules }: { rules: AppliedRule[] }) {
  if (rules.length === 0) return null;
  return (
    <ul class="applied-rules">
      {rules.map((r) => (
        <li key={r.party}>
          {r.party} ({r.jurisdiction}): <strong>{r.entry}</strong>,{' '}
          {r.regime === 'TRAVEL_RULE' ? 'travel rule applies' : 'below threshold'} ({r.reason}). Source:{' '}
          {r.source}
        </li>
      ))}
    </ul>
  );
}

type HeldTo = Awaited<ReturnType<typeof heldTo>>;
type Proof = Awaited<ReturnType<typeof proofOf>>['walletProof'];
const proofOf = (client: HubClient, transactionRef: string) =>
  unwrap(
    client.GET('/v1/transactions/{transactionRef}/wallet-proof', { params: { path: { transactionRef } } }),
  );
const heldTo = (client: HubClient, transactionRef: string) =>
  unwrap(client.GET('/v1/transactions/{transactionRef}/rules', { params: { path: { transactionRef } } }));

/** On a transaction's page: the rules it was held to at initiation, and its wallet proof. */
export function TransferCompliance({ transactionRef }: { transactionRef: string }) {
  const { client } = useOrg();
  const [rules, setRules] = useState<HeldTo | null>(null);
  const [proof, setProof] = useState<Proof | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    Promise.all([heldTo(client, transactionRef), proofOf(client, transactionRef)]).then(([r, p]) => {
      setRules(r);
      setProof(p.walletProof);
    }, setError);
  }, [transactionRef]);
  return (
    <section class="panel" aria-labelledby="compliance-heading">
      <h2 id="compliance-heading">Rules and wallet proof</h2>
      {error ? <p class="note">{describeError(error)}</p> : null}
      {rules === null ? null : rules.rules.length === 0 ? (
        <p class="muted">No jurisdiction rules applied (neither party had a jurisdiction).</p>
      ) : (
        <>
          <p>{rules.regime === 'TRAVEL_RULE' ? 'The travel rule applied.' : 'Below every threshold.'}</p>
          <AppliedRules rules={rules.rules} />
        </>
      )}
      {proof === undefined ? null : proof === null ? (
        <p class="muted">No self-hosted wallet proof attached.</p>
      ) : (
        <dl class="facts">
          <Fact label="Wallet">
            <span class="mono break">{proof.address}</span> ({proof.chain})
          </Fact>
          <Fact label="Proof">
            {proof.method === 'CUSTOMER_DECLARATION' ? (
              <strong>customer declaration (not verified)</strong>
            ) : (
              <>
                {proof.method} signature, verified <Time iso={proof.verifiedAt} />
              </>
            )}
          </Fact>
        </dl>
      )}
    </section>
  );
}
