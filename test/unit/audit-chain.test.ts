/**
 * The pure parts of the audit chain: RFC 8785 canonical JSON, the walk that names the first
 * broken row, and the audit key (from a PEM file or derived from the master key) that signs
 * checkpoints.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ChainWalker, canonicalJson, GENESIS, type LinkedRow, linkHash } from '../../src/audit/chain.js';
import { AuditSigner, checkpointSigned } from '../../src/audit/checkpoint.js';
import { loadConfig } from '../../src/config.js';

function chain(n: number): LinkedRow[] {
  const rows: LinkedRow[] = [];
  let prev = GENESIS;
  for (let seq = 1; seq <= n; seq++) {
    const row = {
      seq,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      actor: 'operator:alice',
      action: 'organization.updated',
      subjectType: 'organization',
      subjectId: `org-${seq}`,
      details: seq % 2 ? { fields: ['name'], n: seq } : null,
    };
    const hash = linkHash(prev, row);
    rows.push({ ...row, prevHash: prev, hash });
    prev = hash;
  }
  return rows;
}

function walk(rows: LinkedRow[], contiguous = true) {
  const w = new ChainWalker(contiguous);
  for (const r of rows) {
    const broken = w.next(r);
    if (broken) return broken;
  }
  return w.rows;
}

describe('canonical JSON (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units and writes numbers and strings as ECMAScript does', () => {
    // RFC 8785 §3.2.3's sorting example (keys only) and §3.2.2's number forms.
    const sorted = canonicalJson({
      '\u20ac': 1,
      '\r': 2,
      '\ud83d\ude00': 3,
      '1': 4,
      '\u0080': 5,
      '\u00f6': 6,
      '\ufb33': 7,
    });
    assert.equal(sorted, '{"\\r":2,"1":4,"\u0080":5,"\u00f6":6,"\u20ac":1,"\ud83d\ude00":3,"\ufb33":7}');
    assert.equal(
      canonicalJson([1e21, 1e-7, 0.1, -0, Number('333333333.33333329')]),
      '[1e+21,1e-7,0.1,0,333333333.3333333]',
    );
    assert.equal(
      canonicalJson({ b: [true, null], a: { d: 'x', c: '\u001f' } }),
      '{"a":{"c":"\\u001f","d":"x"},"b":[true,null]}',
    );
  });
});

describe('the chain walk', () => {
  const cases: [string, (rows: LinkedRow[]) => LinkedRow[], number | RegExp][] = [
    ['an intact chain', (r) => r, 6],
    [
      'a changed row',
      (r) => r.map((x) => (x.seq === 3 ? { ...x, actor: 'hub' } : x)),
      /^3: row seq 3: hash does not match/,
    ],
    ['a deleted row', (r) => r.filter((x) => x.seq !== 4), /^4: row seq 4 is missing/],
    [
      'two deleted rows',
      (r) => r.filter((x) => x.seq !== 4 && x.seq !== 5),
      /^4: rows seq 4 to 5 are missing/,
    ],
    [
      'two rows swapped',
      (r) => [r[0]!, r[2]!, r[1]!, ...r.slice(3)],
      /^2: rows seq 2 to 2 are missing|^2: row seq 2 is missing/,
    ],
    [
      'two rows trading seq',
      (r) => [r[0]!, { ...r[2]!, seq: 2 }, { ...r[1]!, seq: 3 }, ...r.slice(3)],
      /^2: row seq 2: prevHash does not match/,
    ],
    [
      'a recomputed hash without its successor',
      (r) =>
        r.map((x) =>
          x.seq === 2 ? { ...x, actor: 'hub', hash: linkHash(x.prevHash, { ...x, actor: 'hub' }) } : x,
        ),
      /^3: row seq 3: prevHash does not match/,
    ],
    ['a duplicated row', (r) => [...r.slice(0, 3), r[2]!, ...r.slice(3)], /^3: row seq 3 is out of order/],
  ];
  for (const [name, tamper, expected] of cases) {
    it(`names the first broken row: ${name}`, () => {
      const result = walk(tamper(chain(6)));
      if (typeof expected === 'number') assert.equal(result, expected);
      else {
        assert.equal(typeof result, 'object');
        const b = result as { seq: number; reason: string };
        assert.match(`${b.seq}: ${b.reason}`, expected);
      }
    });
  }

  it('allows gaps in a filtered export but still checks each row and each neighbour', () => {
    const rows = chain(6);
    assert.equal(walk([rows[0]!, rows[2]!, rows[3]!], false), 3);
    const changed = walk([rows[0]!, { ...rows[2]!, subjectId: 'x' }], false);
    assert.match((changed as { reason: string }).reason, /row seq 3: hash does not match/);
  });
});

describe('the audit key', () => {
  it('derives one key per master key, and signs checkpoints that verify only unchanged', () => {
    const master = randomBytes(32);
    const a = AuditSigner.fromMasterKey(master);
    assert.equal(AuditSigner.fromMasterKey(master).publicKeyPem, a.publicKeyPem);
    assert.notEqual(AuditSigner.fromMasterKey(randomBytes(32)).publicKeyPem, a.publicKeyPem);
    const cp = a.sign({ seq: 3, hash: 'ab'.repeat(32) }, '2026-11-27T18:00:00.000Z');
    assert.ok(checkpointSigned(cp));
    assert.ok(!checkpointSigned({ ...cp, hash: 'cd'.repeat(32) }));
    assert.ok(!checkpointSigned({ ...cp, at: '2026-11-27T18:00:00.001Z' }));
    assert.ok(!checkpointSigned(cp, AuditSigner.fromMasterKey(randomBytes(32)).publicKeyPem));
    assert.equal(JSON.stringify({ a }), '{"a":"[AuditSigner]"}');
  });

  it('takes HUB_AUDIT_SIGNING_KEY from a PEM file and refuses anything but an Ed25519 private key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trh-audit-key-'));
    try {
      const ed = generateKeyPairSync('ed25519');
      const good = join(dir, 'audit.pem');
      writeFileSync(good, ed.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const config = loadConfig({ HUB_AUDIT_SIGNING_KEY: good });
      const signer = AuditSigner.forConfig(config, randomBytes(32));
      assert.equal(signer.publicKeyPem, ed.publicKey.export({ type: 'spki', format: 'pem' }));

      const rsa = join(dir, 'rsa.pem');
      writeFileSync(
        rsa,
        generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
          type: 'pkcs8',
          format: 'pem',
        }),
      );
      const pub = join(dir, 'pub.pem');
      writeFileSync(pub, ed.publicKey.export({ type: 'spki', format: 'pem' }));
      for (const file of [rsa, pub]) {
        assert.throws(
          () => loadConfig({ HUB_AUDIT_SIGNING_KEY: file }),
          /^ConfigError: HUB_AUDIT_SIGNING_KEY: .* holds no PEM Ed25519 private key$/,
        );
      }
      assert.throws(
        () => loadConfig({ HUB_AUDIT_SIGNING_KEY: join(dir, 'missing.pem') }),
        /HUB_AUDIT_SIGNING_KEY: cannot read .*ENOENT/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
