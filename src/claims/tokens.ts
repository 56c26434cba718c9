/**
 * The tokens of the hub's link URLs: a NOTIFY transaction's claim link, an approved applicant's
 * credentials link (single-use; a claim link works while its transaction is open), and a TRP transfer's callback on this hub. A token is 256 bits, derived as HMAC-SHA256 under a key that HKDF
 * draws from the master key, of the thing it opens (the transaction reference, the pickup id):
 * so the e-mail that carries it can be composed at send time from the outbox row, and the
 * database holds only the token's SHA-256, never a token. Without the master key the stored hash
 * leads nowhere; with it, a token is found by what it opens, never guessed.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { currentKeyBytes, type SealingKeys } from '../crypto/envelope.js';
import type { EmailLinks } from '../deliveries/email-texts.js';

/** What a token looks like in a URL: 43 base64url characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class LinkTokens {
  private readonly key: Buffer;

  /** `linkKey`: the stored link key (keys/link-key.ts); without it, drawn from the current master key. */
  constructor(masterKey: SealingKeys, linkKey?: Buffer) {
    this.key =
      linkKey ??
      Buffer.from(hkdfSync('sha256', currentKeyBytes(masterKey), Buffer.alloc(0), 'trh/link-tokens', 32));
  }

  claimToken(transactionRef: string): string {
    return this.derive(`claim:${transactionRef}`);
  }

  pickupToken(pickupId: string): string {
    return this.derive(`credentials:${pickupId}`);
  }

  /** A person's invitation link (SPEC §17), single-use: the people domain keeps its hash. */
  invitationToken(invitationId: string): string {
    return this.derive(`invitation:${invitationId}`);
  }

  /** The token of this hub's TRP callback URL for a transfer (src/trp/). */
  trpCallbackToken(transactionRef: string): string {
    return this.derive(`trp-callback:${transactionRef}`);
  }

  /** The e-mails' links, on the hub's public URL; `operator`: HUB_OPERATOR_CONTACT, if set. */
  links(hub: string, operator?: string): EmailLinks {
    const base = hub.replace(/\/+$/, '');
    return {
      hub: base,
      operator: operator ?? null,
      claim: (ref) => `${base}/claim/${this.claimToken(ref)}`,
      credentials: (id) => `${base}/credentials/${this.pickupToken(id)}`,
      invitation: (id) => `${base}/invitation/${this.invitationToken(id)}`,
    };
  }

  private derive(subject: string): string {
    return createHmac('sha256', this.key).update(subject).digest('base64url');
  }
}

/** What the database keeps of a token. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
