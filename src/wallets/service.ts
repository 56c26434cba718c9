/**
 * Self-hosted wallet ownership proofs (SPEC §15): recorded per organization after the hub verified
 * the signature (or marked as a customer declaration), attachable to an initiation whose origin or
 * destination is the proven address, and shown to both parties of that transaction.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/database.js';
import { validationFailed } from '../http/errors.js';
import type { CreateWalletProof, WalletProofSummary } from './schemas.js';
import * as store from './store.js';
import {
  addressFits,
  addressKey,
  BITCOIN_CHAINS,
  EVM_CHAINS,
  isSupportedChain,
  verifyOwnership,
} from './verify.js';

export class WalletProofs {
  constructor(private readonly db: Database) {}

  async create(organizationId: string, body: CreateWalletProof): Promise<store.WalletProof> {
    const declaration = body.type === 'customerDeclaration';
    if (!isSupportedChain(body.chain)) {
      throw validationFailed([
        {
          path: '/chain',
          message: `is not a chain the hub verifies: ${[...EVM_CHAINS, ...BITCOIN_CHAINS].join(', ')}`,
        },
      ]);
    }
    let proven: { method: store.WalletProof['method']; address: string; addressKey: string };
    if (declaration) {
      if (body.signature !== undefined) {
        throw validationFailed([
          { path: '/signature', message: 'is not used for a customerDeclaration; remove it' },
        ]);
      }
      if (!(await addressFits(body.chain, body.address))) {
        throw validationFailed([{ path: '/address', message: `is not a ${body.chain} address` }]);
      }
      proven = {
        method: 'CUSTOMER_DECLARATION',
        address: body.address,
        addressKey: addressKey(body.chain, body.address),
      };
    } else {
      if (body.signature === undefined) {
        throw validationFailed([
          { path: '/signature', message: 'is required (or type: customerDeclaration)' },
        ]);
      }
      const verdict = await verifyOwnership({ ...body, signature: body.signature });
      if (!verdict.ok) {
        throw validationFailed(
          [{ path: verdict.path, message: verdict.message }],
          'The signature does not prove control of the address; see errors.',
        );
      }
      proven = verdict;
    }
    return store.insertProof(this.db, {
      id: randomUUID(),
      organizationId,
      chain: body.chain,
      ...proven,
      messageSha256: createHash('sha256').update(body.message, 'utf8').digest(),
      signature: declaration ? null : (body.signature ?? null),
      verified: !declaration,
    });
  }

  list(organizationId: string, query: { chain?: string; address?: string }) {
    return store.listProofs(this.db, organizationId, {
      ...(query.chain === undefined ? {} : { chain: query.chain }),
      ...(query.address === undefined
        ? {}
        : { addressKey: query.chain === undefined ? query.address : addressKey(query.chain, query.address) }),
    });
  }

  /**
   * The proof an initiation attaches (`walletProofId`): the caller's, for the asset's chain, and for
   * the transfer's origin or destination; 400 otherwise. undefined when none is attached.
   */
  async forInitiation(
    organizationId: string,
    body: {
      walletProofId?: string;
      transactionAsset: string;
      transactionBlockchainInfo: { origin?: string; destination?: string };
    },
  ): Promise<WalletProofSummary | undefined> {
    if (body.walletProofId === undefined) return undefined;
    const proof = await store.findProof(this.db, body.walletProofId);
    const refuse = (message: string) => validationFailed([{ path: '/walletProofId', message }]);
    if (!proof || proof.organizationId !== organizationId)
      throw refuse('names no wallet proof of this organization');
    const chain = body.transactionAsset.split('-')[0]!.toUpperCase();
    if (proof.chain !== chain) throw refuse(`is a proof for ${proof.chain}, but the asset is on ${chain}`);
    const info = body.transactionBlockchainInfo;
    const ends = [info.origin, info.destination]
      .filter((a) => a !== undefined)
      .map((a) => addressKey(chain, a));
    if (!ends.includes(proof.addressKey)) {
      throw refuse('proves an address that is neither the transfer’s origin nor its destination');
    }
    return {
      id: proof.id,
      chain: proof.chain,
      address: proof.address,
      method: proof.method,
      verifiedAt: proof.verifiedAt,
    };
  }

  async ofTransaction(ref: string): Promise<WalletProofSummary | null> {
    const proof = await store.proofOfTransaction(this.db, ref);
    if (!proof) return null;
    return {
      id: proof.id,
      chain: proof.chain,
      address: proof.address,
      method: proof.method,
      verifiedAt: proof.verifiedAt,
    };
  }
}
