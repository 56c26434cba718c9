import assert from 'node:assert/strict';
import { createECDH, createHash } from 'node:crypto';
import { it } from 'node:test';
import { createBase58check } from '@scure/base';
import { Address, Signer } from 'bip322-js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { eachBackend } from '../harness.js';
import { mainRequest } from '../support/requests.js';

const base58check = createBase58check((d: Uint8Array) => createHash('sha256').update(d).digest());

/** A fresh secp256k1 key (node:crypto) as WIF, and its compressed public key. */
function freshBitcoinKey() {
  const ecdh = createECDH('secp256k1');
  ecdh.generateKeys();
  const wif = base58check.encode(
    Buffer.concat([Buffer.from([0x80]), ecdh.getPrivateKey(), Buffer.from([1])]),
  );
  return { wif, publicKey: Buffer.from(ecdh.getPublicKey(null, 'compressed')) };
}
const btcAddress = (publicKey: Buffer, type: 'p2pkh' | 'p2wpkh' | 'p2tr') =>
  Address.convertPubKeyIntoAddress(publicKey, type).mainnet as string;

// Published vectors.
// BIP-322 (its "Hello World" vector for the P2WPKH address of the BIP's test key).
const BIP322_ADDRESS = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';
const BIP322_HELLO =
  'AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=';
// BIP-137 / Bitcoin Core signmessage: 'test message' with the uncompressed key
// 5KMWWy2d3Mjc8LojNoj8Lcz9B1aWu8bRofUgGwQk959Dw5h2iyw (the vector Electrum and Bitcoin Core agree on).
const BIP137_ADDRESS = '1HUBHMij46Hae75JPdWjeZ5Q7KaL7EFRSD';
const BIP137_SIGNATURE =
  'G/iew/NhHV9V9MdUEn/LFOftaTy1ivGPKPKyMlr8OSokNC755fAxpSThNRivwTNsyY9vPUDTRYBPc2cmGd5d4y4=';
// EIP-191 personal_sign of 'Hello World' by the documented ethers test wallet
// ('announce room limb … alcohol', m/44'/60'/0'/0/0).
const EIP191_ADDRESS = '0x71CB05EE1b1F506fF321Da3dac38f25c0c9ce6E1';
const EIP191_SIGNATURE =
  '0x14280e5885a19f60e536de50097e96e3738c7acae4e9e62d67272d794b8127d31c03d9cd59781d4ee31fb4e1b893bd9b020ec67dfa65cfb51e2bdadbb1de26d91c';
// EIP-55's own examples of checksummed addresses.
const EIP55 = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

eachBackend('wallet ownership proofs', (hub) => {
  const prove = (key: string, body: Record<string, unknown>) =>
    hub().request('POST', '/v1/wallet-proofs', { key, body });

  it('verifies EIP-191 personal_sign with a fresh key and stores the EIP-55 form', async () => {
    const org = await hub().createOrg();
    const account = privateKeyToAccount(generatePrivateKey());
    const message = 'I control this address. Exchange customer 4711, 2026-11-27.';
    const signature = await account.signMessage({ message });
    const res = await prove(org.apiKey, {
      chain: 'ETH',
      address: account.address.toLowerCase(),
      message,
      signature,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.method, 'EIP-191');
    assert.equal(res.body.address, account.address);
    assert.match(res.body.verifiedAt, /^\d{4}-/);
    assert.ok(!res.text.includes('4711'), 'the message is not echoed');
    const list = await hub().request(
      'GET',
      `/v1/wallet-proofs?chain=ETH&address=${account.address.toUpperCase().replace('0X', '0x')}`,
      {
        key: org.apiKey,
      },
    );
    assert.deepEqual(
      list.body.walletProofs.map((p: any) => p.id),
      [res.body.id],
    );
    const again = await prove(org.apiKey, { chain: 'ETH', address: account.address, message, signature });
    assert.equal(again.status, 201);
    assert.notEqual(again.body.id, res.body.id);
  });

  it('verifies the published EIP-191 example and refuses a tampered message, a wrong address and a bad checksum', async () => {
    const org = await hub().createOrg();
    const ok = await prove(org.apiKey, {
      chain: 'ETH',
      address: EIP191_ADDRESS,
      message: 'Hello World',
      signature: EIP191_SIGNATURE,
    });
    assert.equal(ok.status, 201, ok.text);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ message: 'Hello World!' }, '/signature', /not made by this address/],
      [{ address: EIP55[0] }, '/signature', /not made by this address/],
      [{ address: EIP191_ADDRESS.replace('CB', 'cb') }, '/address', /EIP-55 checksum/],
      [{ signature: '0x1234' }, '/signature', /65-byte/],
      [{ chain: 'BTC' }, '/address', /not a Bitcoin mainnet address/],
      [{ chain: 'DOGE' }, '/chain', /not a chain the hub verifies/],
    ];
    for (const [change, path, message] of cases) {
      const res = await prove(org.apiKey, {
        chain: 'ETH',
        address: EIP191_ADDRESS,
        message: 'Hello World',
        signature: EIP191_SIGNATURE,
        ...change,
      });
      assert.equal(res.status, 400, JSON.stringify(change));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, path, JSON.stringify(change));
      assert.match(res.body.errors[0].message, message);
    }
  });

  it('verifies BIP-322 simple (P2WPKH, P2TR) and BIP-137 (P2PKH) signatures made with fresh keys', async () => {
    const org = await hub().createOrg();
    const key = freshBitcoinKey();
    const message = 'Proof of ownership for exchange customer';
    for (const [type, method] of [
      ['p2wpkh', 'BIP-322'],
      ['p2tr', 'BIP-322'],
      ['p2pkh', 'BIP-137'],
    ] as const) {
      const address = btcAddress(key.publicKey, type);
      const signature = Signer.sign(key.wif, address, message) as string;
      const res = await prove(org.apiKey, { chain: 'BTC', address, message, signature });
      assert.equal(res.status, 201, `${type}: ${res.text}`);
      assert.equal(res.body.method, method, type);
      const tampered = await prove(org.apiKey, { chain: 'BTC', address, message: `${message}.`, signature });
      assert.equal(tampered.status, 400, type);
      assert.match(tampered.body.errors[0].message, /not made by this address’s key/);
      const other = btcAddress(freshBitcoinKey().publicKey, type);
      const wrongAddress = await prove(org.apiKey, { chain: 'BTC', address: other, message, signature });
      assert.equal(wrongAddress.status, 400, type);
    }
  });

  it('verifies the published BIP-322 and BIP-137 vectors', async () => {
    const org = await hub().createOrg();
    const bip322 = await prove(org.apiKey, {
      chain: 'BTC',
      address: BIP322_ADDRESS,
      message: 'Hello World',
      signature: BIP322_HELLO,
    });
    assert.equal(bip322.status, 201, bip322.text);
    assert.equal(bip322.body.method, 'BIP-322');
    const bip137 = await prove(org.apiKey, {
      chain: 'BTC',
      address: BIP137_ADDRESS,
      message: 'test message',
      signature: BIP137_SIGNATURE,
    });
    assert.equal(bip137.status, 201, bip137.text);
    assert.equal(bip137.body.method, 'BIP-137');
    const wrongChain = await prove(org.apiKey, {
      chain: 'ETH',
      address: BIP322_ADDRESS,
      message: 'Hello World',
      signature: BIP322_HELLO,
    });
    assert.equal(wrongChain.status, 400);
    assert.equal(wrongChain.body.errors[0].path, '/address');
  });

  it('records a customer declaration, marked as such, for addresses of the chain’s form only', async () => {
    const org = await hub().createOrg();
    for (const address of EIP55) {
      const res = await prove(org.apiKey, {
        chain: 'ETH',
        address,
        message: 'I declare this wallet is mine.',
        type: 'customerDeclaration',
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.method, 'CUSTOMER_DECLARATION');
      assert.equal(res.body.verifiedAt, null);
    }
    const bad = await prove(org.apiKey, {
      chain: 'ETH',
      address: EIP55[0]!.replace('aAeb', 'aaeb'),
      message: 'I declare this wallet is mine.',
      type: 'customerDeclaration',
    });
    assert.equal(bad.status, 400);
    const withSignature = await prove(org.apiKey, {
      chain: 'ETH',
      address: EIP55[0],
      message: 'x',
      signature: EIP191_SIGNATURE,
      type: 'customerDeclaration',
    });
    assert.equal(withSignature.status, 400);
  });

  it('attaches a proof to an initiation when it proves the origin or destination, and shows it to the beneficiary', async () => {
    const beneficiary = await hub().createOrg({ travelEndpoint: 'https://b.example/travel' });
    const originator = await hub().createOrg();
    const stranger = await hub().createOrg();
    const account = privateKeyToAccount(generatePrivateKey());
    const message = 'ownership';
    const signature = await account.signMessage({ message });
    const proof = (
      await prove(originator.apiKey, { chain: 'ETH', address: account.address, message, signature })
    ).body;
    const theirs = (
      await prove(stranger.apiKey, { chain: 'ETH', address: account.address, message, signature })
    ).body;
    const body = mainRequest(beneficiary.vaspDid);
    body.transactionBlockchainInfo.destination = account.address.toLowerCase();

    const foreign = await hub().request('POST', '/v1/transactions/initiate', {
      key: originator.apiKey,
      body: { ...body, walletProofId: theirs.id },
    });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.errors[0].path, '/walletProofId');
    const elsewhere = await hub().request('POST', '/v1/transactions/initiate', {
      key: originator.apiKey,
      body: { ...mainRequest(beneficiary.vaspDid), walletProofId: proof.id },
    });
    assert.equal(elsewhere.status, 400);
    assert.match(elsewhere.body.errors[0].message, /neither the transfer’s origin nor its destination/);

    const res = await hub().request('POST', '/v1/transactions/initiate', {
      key: originator.apiKey,
      body: { ...body, walletProofId: proof.id },
    });
    assert.equal(res.status, 200, res.text);
    const ref = res.body.transactionRef;
    const expected = {
      id: proof.id,
      chain: 'ETH',
      address: account.address,
      method: 'EIP-191',
      verifiedAt: proof.verifiedAt,
    };
    const seen = await hub().request('GET', `/v1/transactions/${ref}/wallet-proof`, {
      key: beneficiary.apiKey,
    });
    assert.equal(seen.status, 200);
    assert.deepEqual(seen.body.walletProof, expected);
    const hidden = await hub().request('GET', `/v1/transactions/${ref}/wallet-proof`, {
      key: stranger.apiKey,
    });
    assert.equal(hidden.status, 404);
    const rows = await hub().db.query<{ payload: any }>(
      "SELECT payload FROM deliveries WHERE transaction_ref = $1 AND event = 'received'",
      [ref],
    );
    const payload = typeof rows[0]!.payload === 'string' ? JSON.parse(rows[0]!.payload) : rows[0]!.payload;
    assert.deepEqual(payload.walletProof, expected);
  });
});
