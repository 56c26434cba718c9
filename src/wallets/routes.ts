/** Wallet proof routes (SPEC §15): record a proof, list the caller's, read a transaction's. */
import { orgOf } from '../http/auth.js';
import { type HubApp, problems } from '../http/types.js';
import { RefParams } from '../transactions/schemas.js';
import type { TransactionService } from '../transactions/service.js';
import {
  CreateWalletProof,
  TransactionWalletProof,
  WalletProofAnswer,
  WalletProofList,
  WalletProofQuery,
} from './schemas.js';
import type { WalletProofs } from './service.js';

const tags = ['transactions'];

export function walletProofRoutes(app: HubApp, proofs: WalletProofs, transactions: TransactionService) {
  app.post(
    '/v1/wallet-proofs',
    {
      schema: {
        tags,
        summary:
          'Record that a customer controls a self-hosted wallet address (signature verified by the hub)',
        description:
          'EIP-191 personal_sign for EVM chains (0x-hex signature; mixed-case addresses must carry a valid EIP-55 ' +
          'checksum), BIP-137 or BIP-322 simple for BTC (base64). A signature that does not prove control is 400 ' +
          'saying why. `type: customerDeclaration` records the customer’s declaration instead, marked as such.',
        body: CreateWalletProof,
        response: { 201: WalletProofAnswer, ...problems(400, 415) },
      },
    },
    async (request, reply) => {
      const proof = await proofs.create(orgOf(request), request.body);
      reply.code(201);
      const { organizationId: _, ...answer } = proof;
      return answer;
    },
  );

  app.get(
    '/v1/wallet-proofs',
    {
      schema: {
        tags,
        summary: 'The calling organization’s wallet proofs, newest first (EVM addresses match in any case)',
        querystring: WalletProofQuery,
        response: { 200: WalletProofList, ...problems(400) },
      },
    },
    async (request) => ({
      walletProofs: (await proofs.list(orgOf(request), request.query)).map(
        ({ organizationId: _, ...p }) => p,
      ),
    }),
  );

  app.get(
    '/v1/transactions/:transactionRef/wallet-proof',
    {
      schema: {
        tags,
        summary: 'The wallet proof the originator attached to a transaction (either party), or null',
        params: RefParams,
        response: { 200: TransactionWalletProof, ...problems(400, 404) },
      },
    },
    async (request) => {
      // 404 for anyone but the two parties, as for the transaction itself.
      await transactions.get(orgOf(request), request.params.transactionRef);
      return { walletProof: await proofs.ofTransaction(request.params.transactionRef) };
    },
  );
}
