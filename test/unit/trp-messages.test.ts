import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { parseTrpAmount, TrpAmountError, toSmallestUnits, toWholeUnitsNumber } from '../../src/trp/amount.js';
import {
  acceptsTrpVersion,
  isJsonContentType,
  isRequestIdentifier,
  parseApiExtensions,
  parseTrpVersion,
  trpRequestHeaders,
} from '../../src/trp/headers.js';
import {
  parseConfirmation,
  parseInquiry,
  parseResolution,
  TRP_CONTENT_TYPE,
  TRP_VERSION,
  TrpConfirmationOut,
  TrpExtensionsAnswer,
  TrpIdentity,
  TrpIdentityOut,
  TrpInquiryOut,
  TrpInquiryResponseOut,
  TrpResolutionOut,
  TrpVersionAnswer,
  TrpVersionAnswerOut,
  trpSchemaProblems,
} from '../../src/trp/messages.js';

const FIXTURES = new URL('../fixtures/trp/', import.meta.url);
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
const paths = (problems: { path: string }[]) => problems.map((p) => p.path).sort();

describe('TRP fixtures', () => {
  it('are all read by some test below', () => {
    const all = ['valid', 'invalid'].flatMap((dir) =>
      readdirSync(new URL(`${dir}/`, FIXTURES)).map((file) => `${dir}/${file}`),
    );
    assert.deepEqual(all.sort(), Object.keys(EXPECTED).sort());
  });
});

// What each fixture must parse to (or which problems it must have); one line per fixture.
const EXPECTED: Record<string, () => void> = {
  'valid/inquiry-dti-string-amount.json': () => {
    const r = parseInquiry(fixture('valid/inquiry-dti-string-amount.json'));
    assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
    assert.deepEqual(r.value.asset, { dti: 'CK9PW1MFH' });
    assert.deepEqual(parseTrpAmount(r.value.amount, 6), { ok: true, value: '1250.5' });
  },
  'valid/inquiry-slip0044-number-amount.json': () => {
    const r = parseInquiry(fixture('valid/inquiry-slip0044-number-amount.json'));
    assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
    assert.deepEqual(r.value.asset, { slip0044: 0 });
    assert.deepEqual(parseTrpAmount(r.value.amount, 8), { ok: true, value: '0.0375' });
  },
  'valid/resolution-approved.json': () => {
    assert.deepEqual(parseResolution(fixture('valid/resolution-approved.json')), {
      ok: true,
      value: {
        kind: 'approved',
        address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
        callback: 'https://beneficiary-vasp.example/trp/confirm/9d3c61b2-70f4-4a8e-b1d5-3c2e4f6a8b90',
      },
    });
  },
  'valid/resolution-rejected.json': () => {
    assert.deepEqual(parseResolution(fixture('valid/resolution-rejected.json')), {
      ok: true,
      value: { kind: 'rejected', reason: 'beneficiary account is closed' },
    });
  },
  'valid/resolution-rejected-null.json': () => {
    assert.deepEqual(parseResolution(fixture('valid/resolution-rejected-null.json')), {
      ok: true,
      value: { kind: 'rejected', reason: null },
    });
  },
  'valid/inquiry-response-version.json': () => {
    assert.deepEqual(parseResolution(fixture('valid/inquiry-response-version.json')), {
      ok: true,
      value: { kind: 'pending', version: '3.2.1' },
    });
  },
  'valid/inquiry-response-version-nulls.json': () => {
    assert.deepEqual(parseResolution(fixture('valid/inquiry-response-version-nulls.json')), {
      ok: true,
      value: { kind: 'pending', version: '3.1.0' },
    });
  },
  'valid/confirmation-txid.json': () => {
    const r = parseConfirmation(fixture('valid/confirmation-txid.json'));
    assert.ok(r.ok && r.value.kind === 'txid' && r.value.txid.startsWith('0x8d3f'));
  },
  'valid/confirmation-canceled.json': () => {
    assert.deepEqual(parseConfirmation(fixture('valid/confirmation-canceled.json')), {
      ok: true,
      value: { kind: 'canceled', reason: 'the customer withdrew the order' },
    });
  },
  'valid/identity.json': () => {
    assert.ok(Value.Check(TrpIdentity, fixture('valid/identity.json')));
    assert.ok(Value.Check(TrpIdentityOut, fixture('valid/identity.json')));
  },
  'valid/version.json': () => {
    assert.ok(Value.Check(TrpVersionAnswer, fixture('valid/version.json')));
    assert.ok(Value.Check(TrpVersionAnswerOut, fixture('valid/version.json')));
  },
  'invalid/inquiry-missing-ivms101.json': () => {
    const r = parseInquiry(fixture('invalid/inquiry-missing-ivms101.json'));
    assert.ok(!r.ok);
    assert.deepEqual(paths(r.problems), ['/IVMS101']);
  },
  'invalid/inquiry-two-asset-ids.json': () => {
    const r = parseInquiry(fixture('invalid/inquiry-two-asset-ids.json'));
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [{ path: '/asset', message: 'must have exactly one of dti and slip0044' }]);
  },
  'invalid/inquiry-decimal-string-amount.json': () => {
    const r = parseInquiry(fixture('invalid/inquiry-decimal-string-amount.json'));
    assert.ok(!r.ok);
    assert.deepEqual(paths(r.problems), ['/amount']);
  },
  'invalid/inquiry-zero-amount.json': () => {
    const r = parseInquiry(fixture('invalid/inquiry-zero-amount.json'));
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [{ path: '/amount', message: 'must be greater than zero' }]);
  },
  'invalid/inquiry-http-callback.json': () => {
    const body = fixture('invalid/inquiry-http-callback.json');
    const r = parseInquiry(body);
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [{ path: '/callback', message: 'must be an https URL' }]);
    assert.ok(parseInquiry(body, { allowHttp: true }).ok, 'allowed in tests and demos');
  },
  'invalid/resolution-approved-and-rejected.json': () => {
    const r = parseResolution(fixture('invalid/resolution-approved-and-rejected.json'));
    assert.ok(!r.ok);
    assert.match(r.problems[0]?.message ?? '', /only one of/);
  },
  'invalid/resolution-empty.json': () => {
    const r = parseResolution(fixture('invalid/resolution-empty.json'));
    assert.ok(!r.ok);
    assert.match(r.problems[0]?.message ?? '', /one of version, approved and rejected/);
  },
  'invalid/resolution-approved-without-callback.json': () => {
    const r = parseResolution(fixture('invalid/resolution-approved-without-callback.json'));
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [{ path: '/approved/callback', message: 'is required' }]);
  },
  'invalid/confirmation-txid-and-canceled.json': () => {
    const r = parseConfirmation(fixture('invalid/confirmation-txid-and-canceled.json'));
    assert.ok(!r.ok);
    assert.match(r.problems[0]?.message ?? '', /only one of txid and canceled/);
  },
  'invalid/confirmation-empty-txid.json': () => {
    const r = parseConfirmation(fixture('invalid/confirmation-empty-txid.json'));
    assert.ok(!r.ok);
    assert.deepEqual(paths(r.problems), ['/txid']);
  },
};

describe('TRP messages against the fixtures', () => {
  for (const [name, check] of Object.entries(EXPECTED)) it(name, check);
});

describe('parseInquiry', () => {
  const base = () => fixture('valid/inquiry-dti-string-amount.json') as Record<string, unknown>;

  it('tolerates fields it does not know, at the top and inside', () => {
    const body = { ...base(), vendorTraceId: 'x', asset: { dti: 'CK9PW1MFH', network: 'ethereum' } };
    assert.ok(parseInquiry(body).ok);
  });

  it('treats a null asset member as absent', () => {
    assert.ok(parseInquiry({ ...base(), asset: { dti: 'CK9PW1MFH', slip0044: null } }).ok);
  });

  it('accepts the coin symbol TRISA sends as slip0044', () => {
    assert.ok(parseInquiry({ ...base(), asset: { slip0044: 'BTC' } }).ok);
  });

  it('reports every problem with a pointer, without repeating values', () => {
    // What is inside IVMS101 is the IVMS101 module's to read (any dialect, SPEC §18); here it
    // only has to be an object.
    const r = parseInquiry({ asset: {}, amount: true, callback: 'not a url', IVMS101: [] });
    assert.ok(!r.ok);
    assert.deepEqual(paths(r.problems), ['/IVMS101', '/amount', '/asset', '/callback']);
    assert.ok(r.problems.every((p) => !p.message.includes('not a url')));
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'x', 1]) {
      assert.deepEqual(parseInquiry(body), {
        ok: false,
        problems: [{ path: '', message: 'must be a JSON object' }],
      });
    }
  });
});

describe('parseResolution and parseConfirmation', () => {
  it('read a lone null comment as a decision without comment, and an empty one likewise', () => {
    assert.deepEqual(parseResolution({ rejected: '' }), {
      ok: true,
      value: { kind: 'rejected', reason: null },
    });
    assert.deepEqual(parseConfirmation({ canceled: null }), {
      ok: true,
      value: { kind: 'canceled', reason: null },
    });
    assert.deepEqual(parseConfirmation({ txid: null, canceled: 'stop' }), {
      ok: true,
      value: { kind: 'canceled', reason: 'stop' },
    });
  });

  it('refuse ambiguity and emptiness', () => {
    assert.equal(parseResolution({ version: '3.2.1', rejected: 'no' }).ok, false);
    assert.equal(parseResolution({ approved: null }).ok, false);
    assert.equal(parseConfirmation({}).ok, false);
    assert.equal(parseConfirmation({ txid: null }).ok, false);
  });

  it('require an https confirmation callback in an approval', () => {
    const r = parseResolution({ approved: { address: 'a', callback: 'http://b.example/c' } });
    assert.ok(!r.ok);
    assert.deepEqual(paths(r.problems), ['/approved/callback']);
    assert.ok(
      parseResolution({ approved: { address: 'a', callback: 'http://b.example/c' } }, { allowHttp: true }).ok,
    );
  });

  it('tolerate extra members but check the types of known ones', () => {
    assert.ok(parseResolution({ rejected: 'no', note: 1 }).ok);
    const r = parseResolution({ approved: { address: 7, callback: 'https://b.example/c' } });
    assert.ok(!r.ok);
    assert.deepEqual(paths(r.problems), ['/approved/address']);
  });
});

describe('outbound schemas', () => {
  const inquiry = {
    asset: { dti: 'CK9PW1MFH' },
    amount: '1250500000',
    callback: 'https://hub.example/trp/cb/1',
    IVMS101: { originator: { originatorPersons: [] }, beneficiary: { beneficiaryPersons: [] } },
  };

  it('accept what we send', () => {
    assert.deepEqual(trpSchemaProblems(TrpInquiryOut, inquiry), []);
    assert.deepEqual(
      trpSchemaProblems(TrpInquiryOut, { ...inquiry, asset: { slip0044: 60 }, amount: 0.5 }),
      [],
    );
    assert.ok(Value.Check(TrpInquiryResponseOut, { version: TRP_VERSION }));
    assert.ok(
      Value.Check(TrpResolutionOut, { approved: { address: 'x', callback: 'https://hub.example/c' } }),
    );
    assert.ok(Value.Check(TrpResolutionOut, { rejected: 'not our customer' }));
    assert.ok(Value.Check(TrpConfirmationOut, { txid: 'abc' }));
    assert.ok(Value.Check(TrpConfirmationOut, { canceled: 'by the customer' }));
    assert.ok(Value.Check(TrpExtensionsAnswer, { required: [], supported: [] }));
  });

  it('refuse extra members, both asset identifiers, floats as strings and http callbacks', () => {
    assert.deepEqual(paths(trpSchemaProblems(TrpInquiryOut, { ...inquiry, note: 'x' })), ['/note']);
    assert.deepEqual(
      paths(trpSchemaProblems(TrpInquiryOut, { ...inquiry, asset: { dti: 'CK9PW1MFH', slip0044: 60 } })),
      ['/asset'],
    );
    assert.deepEqual(paths(trpSchemaProblems(TrpInquiryOut, { ...inquiry, amount: '12.5' })), ['/amount']);
    assert.deepEqual(paths(trpSchemaProblems(TrpInquiryOut, { ...inquiry, amount: '0' })), ['/amount']);
    assert.deepEqual(
      paths(trpSchemaProblems(TrpInquiryOut, { ...inquiry, callback: 'http://hub.example/c' })),
      ['/callback'],
    );
    assert.deepEqual(paths(trpSchemaProblems(TrpInquiryOut, { ...inquiry, asset: { dti: 'ck9pw1mfh' } })), [
      '/asset',
    ]);
    assert.equal(Value.Check(TrpResolutionOut, { rejected: '' }), false);
    assert.equal(
      Value.Check(TrpResolutionOut, { rejected: 'x', approved: { address: 'a', callback: 'https://c' } }),
      false,
    );
    assert.equal(Value.Check(TrpConfirmationOut, { txid: 'a', canceled: 'b' }), false);
    assert.equal(
      Value.Check(TrpIdentityOut, { name: 'X', x509: '-----BEGIN CERTIFICATE-----', extra: 1 }),
      false,
    );
    assert.equal(Value.Check(TrpIdentityOut, { name: 'X', x509: '-----BEGIN CERTIFICATE-----' }), true);
  });
});

describe('TRP headers', () => {
  it('accepts any 3.x api-version and nothing else', () => {
    assert.deepEqual(parseTrpVersion('3.2.1'), [3, 2, 1]);
    for (const v of ['3.2.1', '3.1.0', '3.0.0', ' 3.10.4 ']) assert.equal(acceptsTrpVersion(v), true, v);
    for (const v of [undefined, '', '2.1.0', '4.0.0', '3.2', '3.2.1-rc1', 'v3.2.1', '03.2.1']) {
      assert.equal(acceptsTrpVersion(v), false, String(v));
    }
  });

  it('takes UUIDs of any version as request identifiers', () => {
    assert.equal(isRequestIdentifier('7F1C2A40-5B9E-4C1D-9A63-2F4D8E0B6C11'), true);
    assert.equal(isRequestIdentifier('018f3c1e-2b7a-7045-8e6d-1c3b2a1f0e9d'), true);
    for (const v of [undefined, '', 'abc', '7f1c2a40-5b9e-4c1d-9a63-2f4d8e0b6c1'])
      assert.equal(isRequestIdentifier(v), false);
  });

  it('splits api-extensions and reads content types', () => {
    assert.deepEqual(parseApiExtensions(' message-signing, ,extended-ivms101 '), [
      'message-signing',
      'extended-ivms101',
    ]);
    assert.deepEqual(parseApiExtensions(undefined), []);
    for (const v of [undefined, '', 'application/json', 'Application/JSON; charset=utf-8']) {
      assert.equal(isJsonContentType(v), true, String(v));
    }
    for (const v of ['text/plain', 'application/json-patch+json', 'multipart/form-data']) {
      assert.equal(isJsonContentType(v), false, v);
    }
  });

  it('builds the headers of a request', () => {
    assert.deepEqual(trpRequestHeaders({ requestIdentifier: 'id-1' }), {
      'api-version': '3.2.1',
      'request-identifier': 'id-1',
      'content-type': TRP_CONTENT_TYPE,
    });
    assert.deepEqual(
      trpRequestHeaders({ requestIdentifier: 'id-2', apiVersion: '3.1.0', extensions: ['a', 'b'] }),
      {
        'api-version': '3.1.0',
        'request-identifier': 'id-2',
        'content-type': TRP_CONTENT_TYPE,
        'api-extensions': 'a, b',
      },
    );
  });
});

describe('toSmallestUnits (what we send)', () => {
  it('shifts the decimal point by the asset decimals, in string arithmetic', () => {
    assert.equal(toSmallestUnits('1250.5', 6), '1250500000');
    assert.equal(toSmallestUnits('0.00021', 8), '21000');
    assert.equal(toSmallestUnits('0.000000000000000001', 18), '1');
    assert.equal(toSmallestUnits('7', 0), '7');
    assert.equal(toSmallestUnits('1.50000000', 8), '150000000');
    assert.equal(
      toSmallestUnits('1.5000000000', 8),
      '150000000',
      'trailing zeros beyond the decimals are no digits',
    );
    assert.equal(
      toSmallestUnits('123456789012345678901234567890.123456789012345678', 18),
      '123456789012345678901234567890123456789012345678',
    );
    assert.equal(toSmallestUnits('1', 36), `1${'0'.repeat(36)}`);
  });

  it('refuses amounts it cannot send exactly', () => {
    assert.throws(() => toSmallestUnits('1.5', 0), TrpAmountError);
    assert.throws(() => toSmallestUnits('0.123456789', 8), TrpAmountError);
    for (const bad of ['0', '0.000', '-1', '1e-7', '.5', '01', '1.', ' 1', '1,5', '']) {
      assert.throws(() => toSmallestUnits(bad, 8), TrpAmountError, bad);
    }
    assert.throws(() => toSmallestUnits('1', 37), RangeError);
    assert.throws(() => toSmallestUnits('1', 1.5), RangeError);
  });
});

describe('toWholeUnitsNumber (for peers that want a JSON number)', () => {
  it('gives the number when it is exactly the amount', () => {
    assert.equal(toWholeUnitsNumber('0.000021'), 0.000021);
    assert.equal(toWholeUnitsNumber('1.50'), 1.5);
    assert.equal(toWholeUnitsNumber('0.0000001'), 1e-7);
    assert.equal(JSON.stringify({ amount: toWholeUnitsNumber('1250.5') }), '{"amount":1250.5}');
  });

  it('refuses amounts a double cannot hold, and zero', () => {
    assert.throws(() => toWholeUnitsNumber('12345678901234567890.5'), TrpAmountError);
    assert.throws(() => toWholeUnitsNumber('0.123456789012345678'), TrpAmountError);
    assert.throws(() => toWholeUnitsNumber('0'), TrpAmountError);
    assert.throws(() => toWholeUnitsNumber('1e3'), TrpAmountError);
  });
});

describe('parseTrpAmount (what we receive)', () => {
  const ok = (value: unknown, decimals: number, expected: string) =>
    assert.deepEqual(
      parseTrpAmount(value, decimals),
      { ok: true, value: expected },
      `${String(value)} @${decimals}`,
    );
  const bad = (value: unknown, decimals: number) =>
    assert.equal(parseTrpAmount(value, decimals).ok, false, `${String(value)} @${decimals}`);

  it('reads a digit string in the smallest unit', () => {
    ok('21000', 8, '0.00021');
    ok('100000000', 8, '1');
    ok('1', 18, '0.000000000000000001');
    ok('1250500000', 6, '1250.5');
    ok('0007', 0, '7');
    ok('123456789012345678901234567890', 18, '123456789012.34567890123456789');
    ok('9'.repeat(100), 36, `${'9'.repeat(64)}.${'9'.repeat(36)}`);
  });

  it('refuses strings that are not a positive digit string', () => {
    for (const v of ['0', '000', '1.5', '-1', ' 1', '1e3', '', '0x10', '１２', '9'.repeat(101)]) bad(v, 8);
  });

  it('reads a JSON number in whole units through its shortest text', () => {
    ok(0.000021, 8, '0.000021');
    ok(1e-7, 8, '0.0000001');
    ok(JSON.parse('{"a":1E-7}').a, 7, '0.0000001');
    ok(2.5e-8, 9, '0.000000025');
    ok(123.45, 2, '123.45');
    ok(JSON.parse('1.10'), 8, '1.1');
    ok(5, 0, '5');
    ok(21000000, 8, '21000000');
    ok(1e21, 0, `1${'0'.repeat(21)}`);
    ok(999999999999999, 0, '999999999999999');
  });

  it('refuses numbers with more digits than survive a double, or than the asset has', () => {
    bad(0.1 + 0.2, 18); // 0.30000000000000004: 17 significant digits
    bad(JSON.parse('9007199254740993'), 0); // arrives as 9007199254740992
    bad(12345678.12345678, 8); // 16 significant digits
    bad(1e-7, 6);
    bad(2.5e-8, 8);
    bad(5.5, 0);
    bad(123.456, 2);
  });

  it('refuses zero, negatives, non-finite numbers and other types', () => {
    for (const v of [0, -0, -1, Number.NaN, Number.POSITIVE_INFINITY, true, null, undefined, {}, [1]])
      bad(v, 8);
  });

  it('round-trips what we send, both ways', () => {
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 500; i++) {
      const decimals = next() % 19;
      const intDigits = String(next() % 10_000_000);
      const frac = String(next())
        .padStart(10, '0')
        .slice(0, next() % (decimals + 1));
      const amount = frac === '' ? intDigits : `${intDigits}.${frac}`;
      if (!/[1-9]/.test(amount)) continue;
      const normal = amount.includes('.') ? amount.replace(/0+$/, '').replace(/\.$/, '') : amount;
      assert.deepEqual(parseTrpAmount(toSmallestUnits(amount, decimals), decimals), {
        ok: true,
        value: normal,
      });
      const significant = normal.replace('.', '').replace(/^0+/, '').length;
      if (significant <= 15) {
        assert.deepEqual(
          parseTrpAmount(toWholeUnitsNumber(amount), decimals),
          { ok: true, value: normal },
          amount,
        );
      }
    }
  });
});
