import assert from 'node:assert/strict';
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
