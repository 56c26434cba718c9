import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isDid, isEmail } from '../../src/text/formats.js';
import { validateAssetAndAmount } from '../../src/transactions/amount.js';
import {
  ASSET_PATTERN,
  type AssetTable,
  assetDecimals,
  assetOfTrp,
  loadAssetTable,
} from '../../src/transactions/assets.js';

const assets: AssetTable = loadAssetTable();

function check(transactionAsset: unknown, transactionAssetDecimals: unknown, transactionAmount: unknown) {
  return validateAssetAndAmount({ transactionAsset, transactionAssetDecimals, transactionAmount }, assets);
}

function paths(problems: { path: string }[]): string[] {
  return problems.map((p) => p.path);
}

describe('loadAssetTable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assets-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('loads the shipped table with the usual decimals and TRP identifiers', () => {
    assert.deepEqual(assets.get('BTC-BTC'), { decimals: 8, slip0044: 0, dti: '4H95J0R2X' });
    assert.equal(assets.get('ETH-ETH')?.decimals, 18);
    assert.deepEqual(assets.get('ETH-USDC'), { decimals: 6, dti: 'CK9PW1MFH' });
    assert.equal(assets.get('TRX-USDT')?.decimals, 6);
    assert.equal(assets.get('SOL-SOL')?.decimals, 9);
    assert.equal(assetOfTrp(assets, { dti: 'CK9PW1MFH' }), 'ETH-USDC');
    assert.equal(assetOfTrp(assets, { slip0044: 0 }), 'BTC-BTC');
    assert.equal(assetOfTrp(assets, { dti: 'XXXXXXXXX' }), undefined);
    for (const key of assets.keys()) {
      assert.ok(ASSET_PATTERN.test(key) && key === key.toUpperCase(), key);
    }
  });

  it('stores keys upper-case and looks them up in any case', () => {
    const table = loadAssetTable(file('lower.json', '{ "eth-usdc": 6, "Sol-Sol": 9 }'));
    assert.deepEqual([...table.keys()], ['ETH-USDC', 'SOL-SOL']);
    assert.equal(assetDecimals(table, 'eth-USDC'), 6);
    assert.equal(assetDecimals(table, 'ETH-FOO'), undefined);
  });

  it('refuses a broken table, naming the file', () => {
    const cases: [string, RegExp][] = [
      ['not json', /cannot read/],
      ['[]', /JSON object/],
      ['{ "BTC": 8 }', /<chain>-<asset>/],
      ['{ "BTC-BTC": 8.5 }', /integer 0–36/],
      ['{ "BTC-BTC": 37 }', /integer 0–36/],
      ['{ "BTC-BTC": "8" }', /integer 0–36/],
      ['{ "BTC-BTC": 8, "btc-btc": 8 }', /twice/],
      ['{ "BTC-BTC": { "decimals": 8, "dti": "AEIOU1234" } }', /dti/],
      ['{ "BTC-BTC": { "decimals": 8, "slip0044": -1 } }', /slip0044/],
      ['{ "BTC-BTC": { "decimals": 8, "symbol": "BTC" } }', /unknown fields/],
    ];
    cases.forEach(([content, message], index) => {
      const path = file(`bad${index}.json`, content);
      assert.throws(
        () => loadAssetTable(path),
        (err: Error) => message.test(err.message) && err.message.includes(path),
      );
    });
    assert.throws(() => loadAssetTable(join(dir, 'missing.json')), /cannot read/);
  });
});

describe('validateAssetAndAmount', () => {
  it('accepts a well-formed asset, decimals and amount', () => {
    assert.deepEqual(check('ETH-USDC', 6, '1500.25'), []);
    assert.deepEqual(check('BTC-BTC', 8, '0.00000001'), []);
    assert.deepEqual(check('eth-eth', 18, '1'), []);
  });

  it('accepts asset identifiers of the form <chain>-<asset>', () => {
    for (const asset of ['ETH-USDC', 'eth-usdc', 'TRX-USDT', 'SOL-USDC.e', 'ARB1-ETH', 'X-Y.Z.1']) {
      assert.deepEqual(check(asset, 6, '1'), [], asset);
    }
  });

  it('rejects asset identifiers of another form', () => {
    for (const asset of [
      'ETH',
      'ETH-',
      '-USDC',
      'ETH_USDC',
      'ETH-USD-C',
      'ETH USDC',
      'ETH-US DC',
      'ÉTH-USDC',
      '',
      'ETH.X-Y',
    ]) {
      assert.deepEqual(paths(check(asset, 6, '1')), ['/transactionAsset'], asset);
    }
    assert.match(check(42, 6, '1')[0]!.message, /string/);
  });

  it('rejects decimals that are not an integer from 0 to 36', () => {
    for (const decimals of [-1, 37, 1.5, '6', null, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.deepEqual(
        paths(check('FOO-BAR', decimals, '1')),
        ['/transactionAssetDecimals'],
        String(decimals),
      );
    }
    assert.deepEqual(check('FOO-BAR', 0, '1'), []);
    assert.deepEqual(check('FOO-BAR', 36, '1'), []);
  });

  it('requires the table decimals for a known asset, whatever its case', () => {
    const problems = check('eth-usdc', 18, '1');
    assert.deepEqual(paths(problems), ['/transactionAssetDecimals']);
    assert.match(problems[0]!.message, /must be 6 for ETH-USDC/);
    assert.deepEqual(paths(check('BTC-BTC', 0, '1')), ['/transactionAssetDecimals']);
  });

  it('accepts any decimals for an unknown asset', () => {
    for (const decimals of [0, 2, 18, 36]) assert.deepEqual(check('ACME-COIN', decimals, '1'), []);
  });

  it('accepts decimal strings', () => {
    for (const amount of ['1', '10', '0.5', '1.0', '123456789.123456', '0.000001']) {
      assert.deepEqual(check('ETH-USDC', 6, amount), [], amount);
    }
  });

  it('rejects strings that are not plain decimals', () => {
    const bad = [
      '',
      '01',
      '00.5',
      '1.',
      '.5',
      '-1',
      '+1',
      '1e5',
      '1E-6',
      '1,000',
      '1_000',
      ' 1',
      '1 ',
      '0x10',
      'NaN',
    ];
    for (const amount of [...bad, 'Infinity', '١', '１']) {
      assert.deepEqual(paths(check('ETH-USDC', 6, amount)), ['/transactionAmount'], amount);
    }
  });

  it('rejects a zero amount', () => {
    for (const amount of ['0', '0.0', '0.000000']) {
      const problems = check('ETH-USDC', 6, amount);
      assert.deepEqual(paths(problems), ['/transactionAmount']);
      assert.match(problems[0]!.message, /greater than zero/);
    }
  });

  it('rejects more fractional digits than the decimals allow', () => {
    assert.deepEqual(check('ETH-USDC', 6, '1.123456'), []);
    const problems = check('ETH-USDC', 6, '1.1234567');
    assert.deepEqual(paths(problems), ['/transactionAmount']);
    assert.match(problems[0]!.message, /at most 6 fractional digits/);
    assert.deepEqual(paths(check('ETH-USDC', 6, '1.5000000')), ['/transactionAmount']);
  });

  it('leaves the fraction unconstrained when decimals is 0', () => {
    assert.deepEqual(check('ACME-COIN', 0, '1.123456789012345678901234567890123456789'), []);
  });

  it('checks huge amounts exactly, without floating point', () => {
    const huge = `9${'0'.repeat(99)}`;
    assert.deepEqual(check('ETH-ETH', 18, huge), []);
    assert.deepEqual(check('ETH-ETH', 18, `${huge}.${'1'.repeat(18)}`), []);
    // As a float this would round to an integer; as a string the 19th fractional digit is seen.
    assert.deepEqual(paths(check('ETH-ETH', 18, `${huge}.${'1'.repeat(19)}`)), ['/transactionAmount']);
    assert.deepEqual(paths(check('ETH-ETH', 18, `0.${'0'.repeat(60)}`)), ['/transactionAmount']);
  });

  it('rejects an amount sent as a number', () => {
    for (const amount of [1, 0.1, 1e21, 10n, null, true]) {
      const problems = check('ETH-USDC', 6, amount);
      assert.deepEqual(paths(problems), ['/transactionAmount'], String(amount));
      assert.match(problems[0]!.message, /must be a string/);
    }
  });

  it('reports problems with all three fields together', () => {
    assert.deepEqual(paths(check('ETH', 99, '-1')), [
      '/transactionAsset',
      '/transactionAssetDecimals',
      '/transactionAmount',
    ]);
    assert.deepEqual(paths(check(undefined, undefined, undefined)), [
      '/transactionAsset',
      '/transactionAssetDecimals',
      '/transactionAmount',
    ]);
  });

  it('does not repeat the submitted amount in messages', () => {
    for (const amount of ['12345.6789', '987x', '0.000']) {
      for (const problem of check('ETH-USDC', 2, amount))
        assert.ok(!problem.message.includes(amount), problem.message);
    }
  });
});

describe('isDid', () => {
  it('accepts DIDs as the W3C DID syntax defines them', () => {
    for (const did of [
      'did:web:example.com',
      'did:example:123456789abcdefghi',
      'did:web:example.com%3A8443:users:alice',
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      'did:ethr:0x5:0xb9c5714089478a327f09197987f16f9e5d936e8a',
      'did:ion:EiClkZMDxPKqC9c-umQfTkR8vvZ9JPhl_xLDI9Nfk38w5w',
      'did:a::b',
      'did:3:x_y-z.w',
    ]) {
      assert.equal(isDid(did), true, did);
    }
  });

  it('rejects strings that are not DIDs', () => {
    for (const did of [
      '',
      'did',
      'did:',
      'did:web',
      'did:web:',
      'did:web:example.com:',
      'did::example.com',
      'DID:web:example.com',
      'did:Web:example.com',
      'did:we-b:example.com',
      'did:web:exa mple.com',
      'did:web:example.com/path',
      'did:web:example.com#key-1',
      'did:web:example.com?query=1',
      'did:web:a%2',
      'did:web:a%zz',
      'did:web:ümlaut',
      'web:example.com',
      ' did:web:example.com',
      'did:web:example.com\n',
    ]) {
      assert.equal(isDid(did), false, JSON.stringify(did));
    }
  });
});

describe('isEmail', () => {
  it('accepts ordinary addresses', () => {
    for (const email of [
      'ops@example.com',
      'first.last+travel-rule@sub.example.co.uk',
      "o'brien@example.ie",
      'x@xn--bcher-kva.example',
      'a_b=c{d}@e-x.io',
      `${'l'.repeat(64)}@example.com`,
    ]) {
      assert.equal(isEmail(email), true, email);
    }
  });

  it('rejects malformed addresses', () => {
    for (const email of [
      '',
      'plainaddress',
      '@example.com',
      'user@',
      'user@localhost',
      'user@example',
      'us er@example.com',
      'user@exa mple.com',
      '.user@example.com',
      'user.@example.com',
      'us..er@example.com',
      'user@-example.com',
      'user@example-.com',
      'user@example..com',
      'user@.example.com',
      'user@[127.0.0.1]',
      'user@10.0.0.1',
      'a@b@example.com',
      '"quoted"@example.com',
      'user@example.com\n',
      `${'l'.repeat(65)}@example.com`,
      `user@${'a'.repeat(64)}.com`,
      `${'l'.repeat(64)}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(63)}.com`,
    ]) {
      assert.equal(isEmail(email), false, JSON.stringify(email));
    }
  });
});
