/**
 * Verifying that a signer controls an address (SPEC §15). Pure, and no elliptic-curve code of our
 * own: EVM signatures (EIP-191 personal_sign) go to viem, Bitcoin ones (BIP-322 simple for P2WPKH,
 * P2TR and P2SH-P2WPKH; BIP-137 for every address type, legacy P2PKH included) to bip322-js.
 * Each failure says why in words a member can act on; none repeats the message (it may name the
 * customer).
 */
// The libraries load on first use (a separate chunk in the bundle): the hub starts without them.
const viem = () => import('viem');
const bip322 = () => import('bip322-js');

/** Chains whose addresses are EVM addresses (the chain part of the asset table's codes). */
export const EVM_CHAINS = new Set(['ETH', 'BSC', 'MATIC', 'POL', 'AVAX', 'ARB', 'OP', 'BASE']);
export const BITCOIN_CHAINS = new Set(['BTC']);

export type Method = 'EIP-191' | 'BIP-137' | 'BIP-322';

export type Verdict =
  | { ok: true; method: Method; address: string; addressKey: string }
  | { ok: false; path: string; message: string };

const fail = (path: string, message: string): Verdict => ({ ok: false, path, message });

export function isSupportedChain(chain: string): boolean {
  return EVM_CHAINS.has(chain) || BITCOIN_CHAINS.has(chain);
}

/** The form in which addresses of a chain compare: EVM ones case-insensitively. */
export function addressKey(chain: string, address: string): string {
  return EVM_CHAINS.has(chain) ? address.toLowerCase() : address;
}

export async function verifyOwnership(p: {
  chain: string;
  address: string;
  message: string;
  signature: string;
}): Promise<Verdict> {
  if (EVM_CHAINS.has(p.chain)) return verifyEvm(p);
  if (BITCOIN_CHAINS.has(p.chain)) return verifyBitcoin(p);
  return fail('/chain', `is not a chain the hub verifies: ${[...EVM_CHAINS, ...BITCOIN_CHAINS].join(', ')}`);
}

async function verifyEvm(p: { chain: string; address: string; message: string; signature: string }) {
  const { getAddress, isAddress, isHex, recoverMessageAddress } = await viem();
  // EIP-55: an all-lower or all-upper address has no checksum; a mixed-case one must carry a valid one.
  if (!isAddress(p.address, { strict: false })) {
    return fail('/address', `is not an EVM address (0x and 40 hexadecimal digits) for ${p.chain}`);
  }
  if (!isAddress(p.address, { strict: true })) {
    return fail('/address', 'has mixed case that is not a valid EIP-55 checksum; check the address');
  }
  if (!isHex(p.signature) || p.signature.length !== 132) {
    return fail('/signature', 'must be 0x-hex of a 65-byte EIP-191 personal_sign signature');
  }
  let signer: string;
  try {
    signer = await recoverMessageAddress({ message: p.message, signature: p.signature });
  } catch {
    return fail('/signature', 'is not a valid secp256k1 signature');
  }
  const address = getAddress(p.address);
  if (signer !== address) {
    return fail(
      '/signature',
      'was not made by this address’s key for this message (EIP-191 personal_sign): a different message, address or key',
    );
  }
  return { ok: true, method: 'EIP-191', address, addressKey: address.toLowerCase() } as const;
}

/** Whether a declared address has the form of the chain's addresses (nothing is verified). */
export async function addressFits(chain: string, address: string): Promise<boolean> {
  if (EVM_CHAINS.has(chain)) return (await viem()).isAddress(address, { strict: true });
  if (!BITCOIN_CHAINS.has(chain) || /^(tb1|bcrt1|[mn2])/.test(address)) return false;
  return (await bip322()).Address.isValidBitcoinAddress(address);
}

async function verifyBitcoin(p: { address: string; message: string; signature: string }): Promise<Verdict> {
  const { Verifier } = await bip322();
  if (/^(tb1|bcrt1|[mn2])/.test(p.address)) {
    return fail('/address', 'is a Bitcoin test network address; chain BTC means mainnet');
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(p.signature)) return fail('/signature', 'must be base64');
  const bytes = Buffer.from(p.signature, 'base64');
  // A BIP-137 signature is 65 bytes (a header and r, s); a BIP-322 simple one is a witness stack.
  const method: Method = bytes.length === 65 ? 'BIP-137' : 'BIP-322';
  let valid: boolean;
  try {
    valid = Verifier.verifySignature(p.address, p.message, p.signature);
  } catch (err) {
    const text = (err as Error).message ?? '';
    if (/address/i.test(text)) return fail('/address', 'is not a Bitcoin mainnet address the hub can verify');
    return fail('/signature', `is not a well-formed ${method} signature for this address type`);
  }
  if (!valid) {
    return fail(
      '/signature',
      `was not made by this address’s key for this message (${method}): a different message, address or key`,
    );
  }
  return { ok: true, method, address: p.address, addressKey: p.address };
}
