/** The pure parts of search and export: name tokens, the blind index, CSV cells, decimal order. */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { csvCell, csvRow, partyNames } from '../../src/transactions/csv.js';
import { customerNames, NameIndex, nameTokens } from '../../src/transactions/name-index.js';
import { compareDecimals } from '../../src/transactions/reads.js';
import { mainSample } from './ivms101-fixtures.js';

describe('name tokens', () => {
  it('cut names at non-letters, in lower case, without diacritics (NFKD)', () => {
    assert.deepEqual(nameTokens('Müller-Lüdenscheidt, Ödön'), ['muller', 'ludenscheidt', 'odon']);
    assert.deepEqual(nameTokens('ÅSA  o’brien 3rd'), ['asa', 'o', 'brien', 'rd']);
    assert.deepEqual(nameTokens('ﬁnch'), ['finch'], 'compatibility forms decompose');
    assert.deepEqual(
      nameTokens('Žofia Łukasiewicz'),
      ['zofia', 'łukasiewicz'],
      'letters without a decomposition stay',
    );
    assert.deepEqual(nameTokens('山田 太郎'), ['山田', '太郎']);
    assert.deepEqual(nameTokens('12 - 34'), []);
  });

  it('index the customers’ names on both sides, natural and legal, and not the VASPs’', () => {
    const message = mainSample() as any;
    message.beneficiary.beneficiaryPersons.push({
      legalPerson: { name: { nameIdentifier: [{ legalPersonName: 'Acme Trading GmbH' }] } },
    });
    message.originatingVASP = {
      originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: 'Some VASP' }] } } },
    };
    message.originator.originatorPersons[0].naturalPerson.name[0].localNameIdentifier = [
      { primaryIdentifier: '山田', secondaryIdentifier: '太郎', nameIdentifierType: 'LEGL' },
    ];
    const names = customerNames(message);
    assert.ok(names.includes('Doe') && names.includes('John') && names.includes('Acme Trading GmbH'));
    assert.ok(names.includes('山田') && names.includes('太郎'), 'local names too');
    assert.ok(!names.includes('Some VASP'));
    const addressed = mainSample() as any;
    addressed.originator.originatorPersons[0].naturalPerson.geographicAddress = [
      { primaryIdentifier: 'Not A Name', addressType: 'HOME', country: 'DE' },
    ];
    assert.ok(!customerNames(addressed).includes('Not A Name'), 'only the elements on the way to a name');
  });
});

describe('the blind index', () => {
  it('is keyed: the same token gives the same entry under one key, another under another', () => {
    const key = randomBytes(32);
    const a = new NameIndex(key);
    const b = new NameIndex(Buffer.from(key));
    const other = new NameIndex(randomBytes(32));
    assert.equal(a.digest('muller'), b.digest('muller'));
    assert.notEqual(a.digest('muller'), other.digest('muller'));
    assert.match(a.digest('muller'), /^[0-9a-f]{32}$/);
    assert.equal(
      a.digest('muller'),
      createHmac('sha256', key).update('muller').digest().subarray(0, 16).toString('hex'),
      'HMAC-SHA256 cut to 16 bytes, as the stored entries are',
    );
    assert.deepEqual(a.queryEntries('MÜLLER muller'), [a.digest('muller')]);
    assert.equal(JSON.stringify({ a }), '{"a":"[NameIndex]"}', 'the key never prints');
  });
});

describe('CSV', () => {
  it('quotes as RFC 4180 says and never lets a cell be read as a formula', () => {
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const cell = csvCell(`${start}HYPERLINK("x")`);
      assert.ok(cell.startsWith(`'${start}`) || cell.startsWith(`"'${start}`), JSON.stringify(cell));
    }
    assert.equal(csvCell('=1+1'), "'=1+1");
    assert.equal(csvCell(null), '');
    assert.equal(csvRow(['a', null, 3]), 'a,,3\r\n');
  });

  it('writes each party’s names for people to read', () => {
    const message = mainSample() as any;
    message.beneficiary.beneficiaryPersons.push({
      legalPerson: { name: { nameIdentifier: [{ legalPersonName: 'Acme Trading GmbH' }] } },
    });
    assert.equal(partyNames(message, 'beneficiary'), 'John Doe; Acme Trading GmbH');
    assert.equal(partyNames({}, 'originator'), '');
  });
});

describe('decimal order', () => {
  it('compares amounts as decimals, not as floats or text', () => {
    assert.equal(compareDecimals('10', '9'), 1);
    assert.equal(compareDecimals('1.5', '1.50'), 0);
    assert.equal(compareDecimals('0.1', '0.09'), 1);
    assert.equal(compareDecimals('123456789012345678901234567890.1', '123456789012345678901234567890.2'), -1);
  });
});
