/** Shapes of wallet ownership proofs (SPEC §15): validator, OpenAPI document and type at once. */
import { type Static, Type } from 'typebox';

const Chain = Type.String({
  pattern: '^[A-Z0-9]{1,16}$',
  description: 'The chain part of the asset codes: BTC, or an EVM chain such as ETH, BSC, MATIC, POL, AVAX.',
  examples: ['ETH'],
});

export const CreateWalletProof = Type.Object(
  {
    chain: Chain,
    address: Type.String({ minLength: 1, maxLength: 128 }),
    message: Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        'The text the customer signed (or, for a declaration, declared). The hub keeps only its SHA-256.',
    }),
    signature: Type.Optional(
      Type.String({
        maxLength: 8192,
        description: 'Bitcoin: base64 (BIP-137, or BIP-322 simple); EVM: 0x-hex (EIP-191 personal_sign).',
      }),
    ),
    type: Type.Optional(
      Type.Enum(['signature', 'customerDeclaration'], {
        description:
          '`signature` (default): the hub verifies `signature`. `customerDeclaration`: the customer declared the ' +
          'address theirs, for jurisdictions that accept it; nothing is verified and the proof is marked as such.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWalletProof = Static<typeof CreateWalletProof>;

export const WalletProofSummary = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    chain: Type.String(),
    address: Type.String({ description: 'EVM addresses in their EIP-55 checksum form.' }),
    method: Type.Enum(['EIP-191', 'BIP-137', 'BIP-322', 'CUSTOMER_DECLARATION'], {
      description:
        'How control was shown; CUSTOMER_DECLARATION is the customer’s word, not a verified signature.',
    }),
    verifiedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the hub verified the signature; null for a customer declaration.',
    }),
  },
  { description: 'A self-hosted wallet ownership proof the originator attached (walletProofId).' },
);
export type WalletProofSummary = Static<typeof WalletProofSummary>;

export const WalletProofAnswer = Type.Object({
  ...WalletProofSummary.properties,
  createdAt: Type.String({ format: 'date-time' }),
});

export const WalletProofList = Type.Object({ walletProofs: Type.Array(WalletProofAnswer) });

export const WalletProofQuery = Type.Object(
  {
    chain: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,16}$' })),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);

export const TransactionWalletProof = Type.Object({
  walletProof: Type.Union([WalletProofSummary, Type.Null()]),
});
