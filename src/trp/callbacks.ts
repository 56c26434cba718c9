/**
 * This hub's callback URLs for TRP transfers, and the check of the callbacks peers give us. A
 * callback's token is derived from the master key and the transaction (claims/tokens.ts), so the
 * URL is composed when a message needs it and the database keeps only the token's hash.
 */
import type { LinkTokens } from '../claims/tokens.js';
import { tokenHash } from '../claims/tokens.js';
import { targetProblem } from '../deliveries/ssrf.js';
import type { TrpProblem, TrpResolutionResult } from './messages.js';

export class TrpCallbacks {
  private readonly base: string;

  constructor(
    publicUrl: string,
    private readonly tokens: LinkTokens,
    private readonly allowPrivate: boolean,
  ) {
    this.base = publicUrl.replace(/\/+$/, '');
  }

  /** Where a peer posts its resolution (outbound transfer) or confirmation (inbound). */
  url(kind: 'resolutions' | 'confirmations', ref: string): string {
    return `${this.base}/trp/${kind}/${this.tokens.trpCallbackToken(ref)}`;
  }

  /** What the database keeps of a transfer's callback token. */
  hash(ref: string): string {
    return tokenHash(this.tokens.trpCallbackToken(ref)).toString('hex');
  }

  /** The hash of a token a peer presents. */
  static hashOf(token: string): string {
    return tokenHash(token).toString('hex');
  }

  /** An approval's callback is where our confirmation will go: the SSRF policy of any target. */
  approvalProblem(r: TrpResolutionResult): TrpProblem | null {
    if (r.kind !== 'approved') return null;
    const problem = targetProblem(new URL(r.callback), this.allowPrivate);
    return problem ? { path: '/approved/callback', message: problem } : null;
  }
}
