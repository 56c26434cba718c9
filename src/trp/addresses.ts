/**
 * Travel addresses (SPEC §16): a member mints one per customer (or per deposit), hands it out,
 * and a TRP VASP's inquiry to it becomes a transfer to the member. The address encodes
 * `{HUB_TRP_PUBLIC_URL}/ta/{token}?t=i`; the token is random and public (it is an address, not a
 * credential: the peer authenticates with its certificate). Minting needs the member's publicKey
 * (the personal data reaches it encrypted, as in BASIC) and a travelEndpoint (to be told).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { TrpConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { findOrganization } from '../directory/store.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { AppError, notFound, validationFailed } from '../http/errors.js';
import type { MintRequest, TravelAddress } from './schemas.js';
import * as store from './store.js';
import { encodeTravelAddress } from './travel-address.js';

/** The path of a travel address's inquiry URL on the TRP listener. */
export const inquiryPath = (token: string) => `/ta/${token}`;

export class TravelAddresses {
  constructor(
    private readonly db: Database,
    private readonly trp: TrpConfig | undefined,
  ) {}

  mint(orgId: string, body: MintRequest): Promise<TravelAddress> {
    const trp = this.enabled();
    if (body.expiresAt !== undefined && Date.parse(body.expiresAt) <= Date.now()) {
      throw validationFailed([{ path: '/expiresAt', message: 'must be in the future' }]);
    }
    return this.db.transaction(async (tx) => {
      const org = await findOrganization(tx, orgId);
      if (!org?.publicKey || !org.travelEndpoint) {
        throw new AppError(
          'FORBIDDEN',
          'An organization receives TRP transfers with a publicKey (the personal data is encrypted for it) ' +
            'and a travelEndpoint (for the received webhook); set both first.',
        );
      }
      const token = randomBytes(16).toString('base64url');
      const url = `${trp.publicUrl.replace(/\/+$/, '')}${inquiryPath(token)}?t=i`;
      const row = await store.insertTravelAddress(tx, {
        id: randomUUID(),
        organizationId: orgId,
        token,
        travelAddress: encodeTravelAddress(url),
        url,
        expiresAt: body.expiresAt ?? null,
      });
      await recordAudit(tx, {
        actor: `org:${orgId}`,
        action: 'travel_address.created',
        subjectType: 'travel_address',
        subjectId: row.id,
        ...(row.expiresAt === null ? {} : { details: { expiresAt: row.expiresAt } }),
      });
      return view(row);
    });
  }

  async list(orgId: string, q: { limit?: string; cursor?: string }) {
    this.enabled();
    const limit = q.limit === undefined ? 50 : Number(q.limit);
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const rows = await store.listTravelAddresses(this.db, orgId, { limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      travelAddresses: page.map(view),
      nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.id) : null,
    };
  }

  revoke(orgId: string, id: string): Promise<TravelAddress> {
    this.enabled();
    return this.db.transaction(async (tx) => {
      const row = await store.revokeTravelAddress(tx, orgId, id);
      if (!row) throw notFound('The travel address');
      await recordAudit(tx, {
        actor: `org:${orgId}`,
        action: 'travel_address.revoked',
        subjectType: 'travel_address',
        subjectId: row.id,
      });
      return view(row);
    });
  }

  private enabled(): TrpConfig {
    if (!this.trp) {
      throw new AppError(
        'NOT_FOUND',
        'This hub has no TRP bridge (its operator has not set HUB_TRP_PORT): travel addresses are not available.',
      );
    }
    return this.trp;
  }
}

function view(row: store.TravelAddress): TravelAddress {
  return {
    id: row.id,
    travelAddress: row.travelAddress,
    url: row.url,
    createdAt: row.createdAt,
    ...(row.expiresAt === null ? {} : { expiresAt: row.expiresAt }),
    ...(row.revokedAt === null ? {} : { revokedAt: row.revokedAt }),
  };
}
