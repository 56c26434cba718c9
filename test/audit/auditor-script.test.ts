/**
 * The verification script that docs/records.md gives auditors, run as printed there on a real
 * export: it accepts the export, names a changed row, and refuses another key.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { promisify } from 'node:util';
import { eachBackend } from '../harness.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'trh-auditor-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The fenced block after the auditor-script marker in docs/records.md. */
function auditorScript(): string {
  const doc = readFileSync(new URL('../../docs/records.md', import.meta.url), 'utf8');
  const m = /<!-- auditor-script:[^>]*-->\n```js\n([\s\S]*?)\n```/.exec(doc);
  assert.ok(m, 'docs/records.md has the auditor script');
  return m[1]!;
}

eachBackend('the auditor’s script in docs/records.md', (hub, backend) => {
  it('accepts an export, names a changed row, and refuses another key', async () => {
    const script = join(dir, 'verify-audit.mjs');
    writeFileSync(script, auditorScript());
    assert.ok(auditorScript().split('\n').length <= 25, 'about twenty lines');
    for (let i = 0; i < 3; i++) await hub().createOrg({ name: `Ünïcode “VASP” ${i}` });
    const cp = await hub().admin('GET', '/v1/admin/audit/checkpoint');
    const key = join(dir, `key-${backend}.pem`);
    writeFileSync(key, cp.body.publicKey);
    const exported = await hub().admin('GET', '/v1/admin/audit?format=jsonl');
    const file = join(dir, `audit-${backend}.jsonl`);
    writeFileSync(file, exported.text);

    const ok = await run(process.execPath, [script, file, key]);
    assert.match(ok.stdout, /^ok: \d+ rows up to /);

    const other = join(dir, `other-${backend}.pem`);
    writeFileSync(
      other,
      generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    );
    const wrongKey = await run(process.execPath, [script, file, other]).catch((e) => e);
    assert.equal(wrongKey.code, 1);

    const lines = exported.text.trim().split('\n');
    const second = JSON.parse(lines[1]!);
    second.details = { ...second.details, extra: 1 };
    lines[1] = JSON.stringify(second);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const changed = await run(process.execPath, [script, file, key]).catch((e) => e);
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /broken at seq 2/);
  });
});
