import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { TestCa } from '../../scripts/certs.js';
import { ConfigError, isUsableAdminKey, loadConfig } from '../../src/config.js';

it('takes an operator key the hub can be sent in x-api-key: printable ASCII, 32 to 256, spaces inside only', () => {
  assert.ok(isUsableAdminKey('my operator key with spaces 2026'), 'HTTP keeps spaces inside a value');
  assert.ok(isUsableAdminKey('x'.repeat(32)) && isUsableAdminKey('x'.repeat(256)));
  for (const bad of [
    'x'.repeat(31),
    'x'.repeat(257),
    ` ${'x'.repeat(30)}`,
    `${'x'.repeat(30)} `,
    `${'x'.repeat(30)}\t1`,
  ]) {
    assert.equal(isUsableAdminKey(bad), false, JSON.stringify(bad));
  }
  assert.equal(isUsableAdminKey('operator-key-über-lang-genug-2026'), false, 'not ASCII');
});

it('takes the TRP settings all together or not at all, with PEM files and a public URL without a path', () => {
  const ca = TestCa.create('config');
  try {
    const leaf = ca.issue('hub');
    const base = {
      HUB_DATA_DIR: '/tmp/unused',
      HUB_TRP_PORT: '8443',
      HUB_TRP_PUBLIC_URL: 'https://trp.hub.example:8443',
      HUB_TRP_TLS_CERT: leaf.certFile,
      HUB_TRP_TLS_KEY: leaf.keyFile,
      HUB_TRP_TLS_CA: ca.certFile,
    };
    const trp = loadConfig(base).trp;
    assert.equal(trp?.port, 8443);
    assert.equal(trp?.mtls, true);
    assert.match(trp?.cert ?? '', /BEGIN CERTIFICATE/);
    assert.equal(loadConfig({ HUB_DATA_DIR: '/tmp/unused' }).trp, undefined);
    assert.equal(loadConfig({ ...base, HUB_TRP_MTLS: 'false' }).trp?.mtls, false);
    const refused: [Record<string, string>, RegExp][] = [
      [{ HUB_TRP_PORT: '' }, /HUB_TRP_PUBLIC_URL is set but HUB_TRP_PORT is not/],
      [{ HUB_TRP_PUBLIC_URL: 'http://trp.hub.example' }, /HUB_TRP_PUBLIC_URL must be the https:\/\/ URL/],
      [{ HUB_TRP_PUBLIC_URL: 'https://trp.hub.example/trp' }, /no path/],
      [{ HUB_TRP_TLS_KEY: '' }, /HUB_TRP_TLS_KEY is required/],
      [
        { HUB_TRP_TLS_CERT: '/nonexistent/cert.pem' },
        /HUB_TRP_TLS_CERT: cannot read \/nonexistent\/cert.pem \(ENOENT\)/,
      ],
      [{ HUB_TRP_TLS_CERT: leaf.keyFile }, /HUB_TRP_TLS_CERT: .* holds no PEM/],
    ];
    for (const [change, message] of refused) {
      assert.throws(
        () => loadConfig({ ...base, ...change }),
        (err: Error) => {
          assert.ok(err instanceof ConfigError, err.message);
          assert.match(err.message, message);
          return true;
        },
      );
    }
  } finally {
    ca.remove();
  }
});

it('takes the master key from HUB_MASTER_KEY or HUB_MASTER_KEY_FILE, older keys from HUB_MASTER_KEYS_PREVIOUS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trh-config-'));
  try {
    const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const file = join(dir, 'master.key');
    writeFileSync(file, `${k1.toString('base64')}\n`);
    const fromFile = loadConfig({ HUB_MASTER_KEY_FILE: file });
    assert.ok(fromFile.masterKey?.equals(k1));
    assert.equal(fromFile.masterKeyFile, file);
    const rotated = loadConfig({
      HUB_MASTER_KEY: k2.toString('base64'),
      HUB_MASTER_KEYS_PREVIOUS: ` ${k1.toString('base64')}, ${k3.toString('base64')} `,
    });
    assert.ok(rotated.masterKey?.equals(k2));
    assert.deepEqual(
      rotated.previousMasterKeys.map((k) => k.toString('hex')),
      [k1, k3].map((k) => k.toString('hex')),
    );
    assert.deepEqual(loadConfig({}).previousMasterKeys, []);
    writeFileSync(join(dir, 'short.key'), 'c2hvcnQ=\n');
    const refused: [Record<string, string>, RegExp][] = [
      [{ HUB_MASTER_KEY: k1.toString('base64'), HUB_MASTER_KEY_FILE: file }, /both set/],
      [{ HUB_MASTER_KEY_FILE: join(dir, 'missing.key') }, /^HUB_MASTER_KEY_FILE: cannot read .*ENOENT/],
      [
        { HUB_MASTER_KEY_FILE: join(dir, 'short.key') },
        /^HUB_MASTER_KEY_FILE: .* must hold base64 of 32 bytes$/,
      ],
      [{ HUB_MASTER_KEYS_PREVIOUS: `${k1.toString('base64')},nope` }, /^HUB_MASTER_KEYS_PREVIOUS: entry 2 /],
    ];
    for (const [env, message] of refused) {
      assert.throws(
        () => loadConfig(env),
        (err: Error) => err instanceof ConfigError && message.test(err.message),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('reads HUB_RETENTION as a duration with years, five years by default', () => {
  const year = 365 * 86_400_000;
  assert.equal(loadConfig({}).retentionMs, 5 * year);
  assert.equal(loadConfig({ HUB_RETENTION: '10y' }).retentionMs, 10 * year);
  assert.equal(loadConfig({ HUB_RETENTION: '2s' }).retentionMs, 2000);
  for (const bad of ['5', '5 years', '0s', '101y']) {
    assert.throws(() => loadConfig({ HUB_RETENTION: bad }), /^ConfigError: HUB_RETENTION must be a duration/);
  }
});

it('takes HUB_OPERATOR_CONTACT as one e-mail address or an http(s) URL, none by default', () => {
  assert.equal(loadConfig({}).operatorContact, undefined);
  assert.equal(
    loadConfig({ HUB_OPERATOR_CONTACT: ' desk@hub.example ' }).operatorContact,
    'desk@hub.example',
  );
  const url = 'https://hub.example/contact';
  assert.equal(loadConfig({ HUB_OPERATOR_CONTACT: url }).operatorContact, url);
  for (const bad of [
    'desk',
    'Desk <desk@hub.example>',
    'ftp://hub.example',
    'a@b.example\u0007',
    'a b@c.example',
  ]) {
    assert.throws(
      () => loadConfig({ HUB_OPERATOR_CONTACT: bad }),
      /^ConfigError: HUB_OPERATOR_CONTACT must be an e-mail address or an http\(s\) URL$/,
      bad,
    );
  }
});
