import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkWebhookTarget,
  classifyAddress,
  guardedLookup,
  validateEndpointUrl,
} from '../../src/deliveries/ssrf.js';

const resolvesTo =
  (...addresses: string[]) =>
  async (_host: string) =>
    addresses;
const strict = { allowPrivate: false };

async function refused(
  url: string,
  opts: Parameters<typeof checkWebhookTarget>[1] = strict,
): Promise<string> {
  const result = await checkWebhookTarget(url, opts);
  assert.equal(result.ok, false, `${url} should be refused`);
  return result.ok ? '' : result.reason;
}

describe('checkWebhookTarget refuses', () => {
  it('http:// without allowPrivate', async () => {
    assert.match(await refused('http://127.0.0.1/v1/notify/received'), /https/);
    assert.match(
      await refused('http://example.com/', { ...strict, lookup: resolvesTo('93.184.216.34') }),
      /https/,
    );
  });

  it('private and metadata IP literals', async () => {
    assert.match(await refused('https://10.0.0.1/hook'), /10\.0\.0\.1: private/);
    assert.match(await refused('https://169.254.169.254/latest/meta-data'), /cloud metadata/);
    assert.match(await refused('https://127.0.0.1:8443/'), /loopback/);
    assert.match(await refused('https://0x7f000001/'), /loopback/);
    assert.match(await refused('https://[::1]/'), /loopback/);
  });

  it('an IPv4-mapped IPv6 loopback literal', async () => {
    assert.match(await refused('https://[::ffff:127.0.0.1]/'), /loopback via IPv4-mapped IPv6/);
  });

  it('a hostname that resolves to loopback', async () => {
    assert.match(
      await refused('https://evil.example/', { ...strict, lookup: resolvesTo('127.0.0.1') }),
      /loopback/,
    );
  });

  it('localhost through the real resolver', async () => {
    assert.match(await refused('https://localhost/'), /loopback/);
  });

  it('a hostname with one public and one private address', async () => {
    const lookup = resolvesTo('93.184.216.34', '192.168.1.10');
    const reason = await refused('https://mixed.example/', { ...strict, lookup });
    assert.match(reason, /mixed\.example resolves to a non-public address \(private\)/);
    assert.doesNotMatch(reason, /192\.168/, 'what a name resolves to is not told back');
  });

  it('a hostname whose nameserver does not answer in time', async () => {
    const lookup = () => new Promise<string[]>(() => {});
    const reason = await refused('https://silent.example/', { ...strict, lookup, lookupTimeoutMs: 50 });
    assert.equal(reason, 'could not resolve silent.example within 0.05 s');
  });

  it('a hostname that does not resolve', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    assert.match(
      await refused('https://nowhere.example/', { ...strict, lookup }),
      /could not resolve.*ENOTFOUND/,
    );
    assert.match(
      await refused('https://empty.example/', { ...strict, lookup: resolvesTo() }),
      /did not resolve/,
    );
  });

  it('non-http schemes and credentials, even with allowPrivate', async () => {
    for (const allowPrivate of [false, true]) {
      assert.match(await refused('ftp://example.com/', { allowPrivate }), /https/);
      assert.match(await refused('file:///etc/passwd', { allowPrivate }), /https/);
      assert.match(await refused('https://user:pass@example.com/', { allowPrivate }), /credentials/);
      assert.match(await refused('https://user@example.com/', { allowPrivate }), /credentials/);
      assert.match(await refused('not a url', { allowPrivate }), /valid absolute URL/);
    }
  });
});

describe('checkWebhookTarget accepts', () => {
  it('a public address from an injected lookup', async () => {
    const result = await checkWebhookTarget('https://vasp.example/v1/notify/received', {
      allowPrivate: false,
      lookup: resolvesTo('93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'),
    });
    assert.equal(result.ok, true);
    if (result.ok) {
      assert.equal(result.url.hostname, 'vasp.example');
      assert.deepEqual(result.addresses, ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
    }
  });

  it('a public IP literal without resolving it', async () => {
    const lookup = async () => assert.fail('literal IPs must not be resolved');
    const result = await checkWebhookTarget('https://8.8.8.8/', { allowPrivate: false, lookup });
    assert.deepEqual(result.ok && result.addresses, ['8.8.8.8']);
  });

  it('http to loopback with allowPrivate', async () => {
    const result = await checkWebhookTarget('http://127.0.0.1:1234/v1/notify/ping', { allowPrivate: true });
    assert.equal(result.ok, true);
    assert.deepEqual(result.ok && result.addresses, ['127.0.0.1']);
  });

  it('a private hostname with allowPrivate, without resolving it', async () => {
    const lookup = async () => assert.fail('nothing is resolved with allowPrivate');
    const result = await checkWebhookTarget('http://receiver.internal:3000/', { allowPrivate: true, lookup });
    assert.deepEqual(result.ok && result.addresses, []);
  });
});

describe('classifyAddress', () => {
  const blocked: Array<[string, RegExp]> = [
    ['0.0.0.0', /unspecified/],
    ['127.8.9.10', /loopback/],
    ['10.255.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.0.1', /private/],
    ['100.64.0.1', /CGNAT/],
    ['100.127.255.255', /CGNAT/],
    ['100.100.100.200', /cloud metadata/],
    ['169.254.1.1', /link-local/],
    ['169.254.169.254', /cloud metadata/],
    ['192.0.0.8', /IETF/],
    ['192.0.2.1', /documentation/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.255', /benchmarking/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /reserved/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback via IPv4-mapped/],
    ['::ffff:7f00:1', /loopback via IPv4-mapped/],
    ['::ffff:a9fe:a9fe', /cloud metadata via IPv4-mapped/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['64:ff9b::10.0.0.1', /private via NAT64/],
    ['64:ff9b::a9fe:a9fe', /cloud metadata via NAT64/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:c0a8:0101::1', /private via 6to4/],
    ['2002:7f00:1::', /loopback via 6to4/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /IETF/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['fc00::1', /unique local/],
    ['fd12:3456::1', /unique local/],
    ['fd00:ec2::254', /cloud metadata/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['100::1', /discard-only/],
    ['4000::1', /reserved/],
    ['example.com', /not an IP address/],
    ['', /not an IP address/],
  ];
  for (const [address, reason] of blocked) {
    it(`refuses ${address || '(empty)'}`, () => {
      assert.match(classifyAddress(address) ?? 'public', reason);
    });
  }

  for (const address of [
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '198.17.255.255',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81c::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:0808:0808::1',
  ]) {
    it(`accepts ${address}`, () => {
      assert.equal(classifyAddress(address), null);
    });
  }
});

describe('validateEndpointUrl', () => {
  it('accepts a public https base URL', () => {
    assert.equal(validateEndpointUrl('https://vasp.example/travel', false), null);
    assert.equal(validateEndpointUrl('https://vasp.example:8443', false), null);
    assert.equal(validateEndpointUrl('https://8.8.8.8/', false), null);
  });

  it('accepts http and private addresses only with allowPrivate', () => {
    assert.match(validateEndpointUrl('http://vasp.example', false)!, /https/);
    assert.match(validateEndpointUrl('https://127.0.0.1:8443', false)!, /loopback/);
    assert.match(validateEndpointUrl('https://[fd00::1]/', false)!, /unique local/);
    assert.match(validateEndpointUrl('https://localhost/', false)!, /localhost/);
    assert.match(validateEndpointUrl('https://api.localhost./', false)!, /localhost/);
    assert.equal(validateEndpointUrl('http://127.0.0.1:1234', true), null);
    assert.equal(validateEndpointUrl('http://localhost:1234/base', true), null);
  });

  it('refuses what is not an absolute http(s) URL', () => {
    for (const bad of [
      '',
      'vasp.example',
      '/v1',
      'mailto:a@b.c',
      'ftp://vasp.example',
      'javascript:alert(1)',
    ]) {
      assert.notEqual(validateEndpointUrl(bad, true), null, bad);
    }
  });

  it('refuses credentials, queries, fragments and whitespace', () => {
    assert.match(validateEndpointUrl('https://u:p@vasp.example', true)!, /credentials/);
    assert.match(validateEndpointUrl('https://vasp.example/?a=1', true)!, /query or fragment/);
    assert.match(validateEndpointUrl('https://vasp.example/?', true)!, /query or fragment/);
    assert.match(validateEndpointUrl('https://vasp.example/#x', true)!, /query or fragment/);
    assert.match(validateEndpointUrl(' https://vasp.example', true)!, /whitespace/);
    assert.match(validateEndpointUrl('https://vasp.example/a\nb', true)!, /whitespace/);
  });

  it('refuses URLs over 2048 characters', () => {
    assert.match(validateEndpointUrl(`https://vasp.example/${'a'.repeat(2048)}`, true)!, /2048/);
  });
});

describe('guardedLookup', () => {
  const lookup = (host: string, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
      guardedLookup(host, { all }, (err, address) => resolve({ err, address }));
    });

  it('fails the connection for a name that resolves to loopback', async () => {
    for (const all of [false, true]) {
      const { err } = await lookup('localhost', all);
      assert.equal(err?.code, 'ERR_SSRF_BLOCKED');
      assert.match(err?.message ?? '', /loopback/);
    }
  });
});
