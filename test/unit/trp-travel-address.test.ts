import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { bech32, createBase58check } from '@scure/base';
import {
  decodeInquiryAddress,
  decodeLnurl,
  decodeTravelAddress,
  encodeTravelAddress,
  TravelAddressError,
  type TravelAddressErrorCode,
} from '../../src/trp/travel-address.js';

// The vector of SPEC §16 (and of TRP's own examples).
const VECTOR_URL = 'beneficiary.com/x/12345?t=i';
const VECTOR_TA = 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv';

// An independent base58check (a library's, with Node's SHA-256) to make addresses the module
// under test did not make: odd payloads for decode, and a cross-check for encode.
const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const base58check = createBase58check(sha256);
const rawAddress = (payload: string | Uint8Array) =>
  `ta${base58check.encode(typeof payload === 'string' ? new TextEncoder().encode(payload) : payload)}`;
const rawLnurl = (text: string) =>
  bech32.encode('lnurl', bech32.toWords(new TextEncoder().encode(text)), false);

function throwsCode(fn: () => unknown, code: TravelAddressErrorCode) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof TravelAddressError, 'a TravelAddressError');
    assert.equal(error.code, code, error.message);
    return true;
  });
}

describe('encodeTravelAddress', () => {
  it('encodes the specification vector', () => {
    assert.equal(encodeTravelAddress(VECTOR_URL), VECTOR_TA);
  });

  it('drops https:// and appends t=i, giving the same address', () => {
    assert.equal(encodeTravelAddress('https://beneficiary.com/x/12345'), VECTOR_TA);
    assert.equal(encodeTravelAddress('https://beneficiary.com/x/12345?t=i'), VECTOR_TA);
    assert.equal(encodeTravelAddress('HTTPS://beneficiary.com/x/12345'), VECTOR_TA);
  });

  it('keeps the rest of the query in its order and appends t=i last', () => {
    const ta = encodeTravelAddress('https://pay.vasp.example/u/42?lang=de&ref=7');
    assert.equal(ta, rawAddress('pay.vasp.example/u/42?lang=de&ref=7&t=i'));
    assert.equal(decodeTravelAddress(ta).url, 'https://pay.vasp.example/u/42?lang=de&ref=7&t=i');
    assert.equal(encodeTravelAddress('pay.vasp.example/u/42?'), rawAddress('pay.vasp.example/u/42?t=i'));
    assert.equal(
      encodeTravelAddress('pay.vasp.example/u/42?a=1&'),
      rawAddress('pay.vasp.example/u/42?a=1&t=i'),
    );
  });

  it('leaves a t=i already in the query where it is', () => {
    assert.equal(encodeTravelAddress('vasp.example/x?t=i&n=2'), rawAddress('vasp.example/x?t=i&n=2'));
  });

  it('encodes hosts with ports, bare hosts and IP addresses', () => {
    for (const url of [
      'trp.vasp.example:8443/in/9',
      'vasp.example',
      '192.0.2.10/inq',
      '[2001:db8::1]:4443/x',
    ]) {
      const ta = encodeTravelAddress(url);
      assert.equal(ta, rawAddress(url.includes('?') ? url : `${url}?t=i`));
      assert.equal(decodeTravelAddress(ta).url, new URL(`https://${url}?t=i`).href);
    }
  });

  it('agrees with an independent base58check on many URLs', () => {
    for (let i = 0; i < 50; i++) {
      const url = `vasp-${i}.example/${'p'.repeat(i)}/${i * 7919}?t=i`;
      assert.equal(encodeTravelAddress(url), rawAddress(url));
    }
  });

  it('refuses schemes other than https', () => {
    throwsCode(() => encodeTravelAddress('http://beneficiary.com/x/12345'), 'scheme');
    throwsCode(() => encodeTravelAddress('ftp://beneficiary.com/x'), 'scheme');
  });

  it('refuses what would not be the same bytes for every reader', () => {
    throwsCode(() => encodeTravelAddress('bücher.example/x'), 'payload');
    throwsCode(() => encodeTravelAddress('vasp.example/a b'), 'payload');
    throwsCode(() => encodeTravelAddress(' vasp.example/x'), 'payload');
    throwsCode(() => encodeTravelAddress('vasp.example\\x'), 'payload');
  });

  it('refuses URLs that are no inquiry URL', () => {
    throwsCode(() => encodeTravelAddress(''), 'url');
    throwsCode(() => encodeTravelAddress('https://'), 'url');
    throwsCode(() => encodeTravelAddress('/x/12345'), 'url');
    throwsCode(() => encodeTravelAddress('vasp.example:99999/x'), 'url');
    throwsCode(() => encodeTravelAddress('user:secret@vasp.example/x'), 'url');
    throwsCode(() => encodeTravelAddress('vasp.example/x#frag'), 'url');
    throwsCode(() => encodeTravelAddress('vasp.example/x?t=x'), 'inquiry-tag');
    throwsCode(() => encodeTravelAddress('vasp.example/x?t=i&t=j'), 'inquiry-tag');
    throwsCode(() => encodeTravelAddress(`vasp.example/${'a'.repeat(2100)}`), 'length');
  });
});

describe('decodeTravelAddress', () => {
  it('decodes the specification vector to its https URL', () => {
    assert.deepEqual(decodeTravelAddress(VECTOR_TA), { url: 'https://beneficiary.com/x/12345?t=i' });
  });

  it('round-trips what it encodes', () => {
    for (const url of ['a.example/1?t=i', 'b.example:444/x/y/z?q=%20&t=i', 'c.example/?t=i']) {
      assert.equal(decodeTravelAddress(encodeTravelAddress(url)).url, `https://${url}`);
    }
  });

  it('accepts a non-ASCII payload from a peer, normalised as an HTTP client sends it', () => {
    assert.equal(
      decodeTravelAddress(rawAddress('bücher.example/ä?t=i')).url,
      'https://xn--bcher-kva.example/%C3%A4?t=i',
    );
  });

  it('refuses a wrong prefix', () => {
    throwsCode(() => decodeTravelAddress(VECTOR_TA.slice(2)), 'prefix');
    throwsCode(() => decodeTravelAddress(`TA${VECTOR_TA.slice(2)}`), 'prefix');
    throwsCode(() => decodeTravelAddress(''), 'prefix');
    throwsCode(() => decodeTravelAddress('lnurl1dp68gurn8ghj7'), 'prefix');
  });

  it('refuses characters outside base58', () => {
    for (const bad of ['0', 'O', 'I', 'l', '+', ' ', 'é']) {
      throwsCode(
        () => decodeTravelAddress(`${VECTOR_TA.slice(0, 10)}${bad}${VECTOR_TA.slice(11)}`),
        'encoding',
      );
    }
  });

  it('refuses a bad checksum: one changed character, a cut-off copy, an appended one', () => {
    const last = VECTOR_TA.at(-1) === 'v' ? 'w' : 'v';
    throwsCode(() => decodeTravelAddress(`${VECTOR_TA.slice(0, -1)}${last}`), 'checksum');
    throwsCode(() => decodeTravelAddress(`${VECTOR_TA.slice(0, 12)}z${VECTOR_TA.slice(13)}`), 'checksum');
    throwsCode(() => decodeTravelAddress(VECTOR_TA.slice(0, -3)), 'checksum');
    throwsCode(() => decodeTravelAddress(`${VECTOR_TA}2`), 'checksum');
  });

  it('refuses garbage and addresses too short or too long', () => {
    throwsCode(() => decodeTravelAddress('ta'), 'length');
    throwsCode(() => decodeTravelAddress('ta3MNQE'), 'length');
    throwsCode(() => decodeTravelAddress(`ta${'z'.repeat(3000)}`), 'length');
    throwsCode(() => decodeTravelAddress('tagarbagegarbagegarbage'), 'checksum');
  });

  it('refuses payloads that are no https inquiry URL', () => {
    throwsCode(() => decodeTravelAddress(rawAddress(new Uint8Array([0xff, 0xfe, 0x41]))), 'payload');
    throwsCode(() => decodeTravelAddress(rawAddress('not a url at all')), 'payload');
    throwsCode(() => decodeTravelAddress(rawAddress('vasp.example/x?t=i\n')), 'payload');
    throwsCode(() => decodeTravelAddress(rawAddress('https://beneficiary.com/x/12345?t=i')), 'scheme');
    throwsCode(() => decodeTravelAddress(rawAddress('http://beneficiary.com/x/12345?t=i')), 'scheme');
    throwsCode(() => decodeTravelAddress(rawAddress('//beneficiary.com/x?t=i')), 'url');
    throwsCode(() => decodeTravelAddress(rawAddress('vasp.example:70000/x?t=i')), 'url');
    throwsCode(() => decodeTravelAddress(rawAddress('me:pw@vasp.example/x?t=i')), 'url');
    throwsCode(() => decodeTravelAddress(rawAddress('vasp.example/x?t=i#top')), 'url');
  });

  it('refuses an address without t=i, or with another t', () => {
    throwsCode(() => decodeTravelAddress(rawAddress('beneficiary.com/x/12345')), 'inquiry-tag');
    throwsCode(() => decodeTravelAddress(rawAddress('beneficiary.com/x/12345?tag=i')), 'inquiry-tag');
    throwsCode(() => decodeTravelAddress(rawAddress('beneficiary.com/x/12345?t=i&t=x')), 'inquiry-tag');
  });

  it('never quotes the address in its messages', () => {
    try {
      decodeTravelAddress(rawAddress('secret-customer.example/acct/777'));
      assert.fail('expected an error');
    } catch (error) {
      assert.ok(error instanceof TravelAddressError);
      assert.doesNotMatch(error.message, /secret-customer|777/);
    }
  });
});

describe('decodeLnurl', () => {
  const url = 'https://old-peer.example/trp/inquiry?q=4711';

  it('decodes an LNURL in lower or upper case', () => {
    const lnurl = rawLnurl(url);
    assert.ok(lnurl.startsWith('lnurl1'));
    assert.deepEqual(decodeLnurl(lnurl), { url });
    assert.deepEqual(decodeLnurl(lnurl.toUpperCase()), { url });
  });

  it('refuses mixed case, a bad checksum, a wrong prefix and non-https URLs', () => {
    const lnurl = rawLnurl(url);
    throwsCode(
      () => decodeLnurl(`${lnurl.slice(0, 10)}${lnurl.slice(10, 11).toUpperCase()}${lnurl.slice(11)}`),
      'encoding',
    );
    const last = lnurl.at(-1) === 'q' ? 'p' : 'q';
    throwsCode(() => decodeLnurl(`${lnurl.slice(0, -1)}${last}`), 'checksum');
    throwsCode(() => decodeLnurl(`${lnurl.slice(0, 8)}b${lnurl.slice(9)}`), 'encoding');
    throwsCode(
      () => decodeLnurl(bech32.encode('lnbc', bech32.toWords(new TextEncoder().encode(url)), false)),
      'prefix',
    );
    throwsCode(() => decodeLnurl(rawLnurl('http://old-peer.example/x')), 'scheme');
    throwsCode(() => decodeLnurl(rawLnurl('old-peer.example/x')), 'scheme');
    throwsCode(() => decodeLnurl(rawLnurl('https://me:pw@old-peer.example/x')), 'url');
  });
});

describe('decodeInquiryAddress', () => {
  it('tells travel addresses and LNURLs apart', () => {
    assert.deepEqual(decodeInquiryAddress(VECTOR_TA), {
      url: 'https://beneficiary.com/x/12345?t=i',
      form: 'travel-address',
    });
    assert.deepEqual(decodeInquiryAddress(rawLnurl('https://x.example/i').toUpperCase()), {
      url: 'https://x.example/i',
      form: 'lnurl',
    });
    throwsCode(() => decodeInquiryAddress('https://beneficiary.com/x/12345?t=i'), 'prefix');
  });
});
