/** SQL of wallet ownership proofs. Rows are mapped to domain shapes here. */
import { type Queryable, toIso } from '../db/database.js';

export interface WalletProof {
  id: string;
  organizationId: string;
  chain: string;
  address: string;
  method: 'EIP-191' | 'BIP-137' | 'BIP-322' | 'CUSTOMER_DECLARATION';
  /** null for a customer declaration: nothing was verified. */
  verifiedAt: string | null;
  createdAt: string;
}

const COLUMNS = 'id, organization_id, chain, address, method, verified_at, created_at';

function toProof(r: Record<string, unknown>): WalletProof {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    chain: r.chain as string,
    address: r.address as string,
    method: r.method as WalletProof['method'],
    verifiedAt: r.verified_at == null ? null : toIso(r.verified_at),
    createdAt: toIso(r.created_at),
  };
}

export async function insertProof(
  q: Queryable,
  p: Omit<WalletProof, 'verifiedAt' | 'createdAt'> & {
    addressKey: string;
    messageSha256: Buffer;
    signature: string | null;
    verified: boolean;
  },
): Promise<WalletProof> {
  const rows = await q.query(
    `INSERT INTO wallet_proofs (id, organization_id, chain, address, address_key, method, message_sha256, signature, verified_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $9::boolean THEN now() END)
     RETURNING ${COLUMNS}`,
    [
      p.id,
      p.organizationId,
      p.chain,
      p.address,
      p.addressKey,
      p.method,
      p.messageSha256,
      p.signature,
      p.verified,
    ],
  );
  return toProof(rows[0]!);
}

export async function listProofs(
  q: Queryable,
  organizationId: string,
  filter: { chain?: string; addressKey?: string },
): Promise<WalletProof[]> {
  const rows = await q.query(
    `SELECT ${COLUMNS} FROM wallet_proofs
      WHERE organization_id = $1 AND ($2::text IS NULL OR chain = $2) AND ($3::text IS NULL OR address_key = $3)
      ORDER BY created_at DESC, id LIMIT 500`,
    [organizationId, filter.chain ?? null, filter.addressKey ?? null],
  );
  return rows.map(toProof);
}

export async function findProof(
  q: Queryable,
  id: string,
): Promise<(WalletProof & { addressKey: string }) | undefined> {
  const rows = await q.query(`SELECT ${COLUMNS}, address_key FROM wallet_proofs WHERE id = $1`, [id]);
  const r = rows[0];
  return r && { ...toProof(r), addressKey: r.address_key as string };
}

/** The initiation statement's input column for the wallet proof it carries (null: none). */
export const WALLET_PROOF_INPUT_COLUMNS = 'wallet_proof_id uuid';

/** SQL that links `source`'s rows to the wallet proof each carries, if any (a data-modifying CTE). */
export function insertWalletProofLinksFrom(source: string): string {
  return `INSERT INTO transaction_wallet_proofs (transaction_ref, wallet_proof_id)
       SELECT ref, wallet_proof_id FROM ${source} WHERE wallet_proof_id IS NOT NULL`;
}

export async function proofOfTransaction(q: Queryable, ref: string): Promise<WalletProof | undefined> {
  const rows = await q.query(
    `SELECT ${COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ')} FROM transaction_wallet_proofs t JOIN wallet_proofs p ON p.id = t.wallet_proof_id
      WHERE t.transaction_ref = $1`,
    [ref],
  );
  return rows[0] && toProof(rows[0]);
}
