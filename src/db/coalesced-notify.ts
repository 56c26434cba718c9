/**
 * NOTIFY without a NOTIFY per write. PostgreSQL serializes the commits of transactions that
 * NOTIFY (they share one queue lock), which halves the rate of the hottest insert; so the
 * initiation path commits without it and pokes this instead. One NOTIFY is in flight at a
 * time; pokes that arrive meanwhile are folded into one more. A poke therefore reaches every
 * listener within about one round trip, and the rate of NOTIFYs stays bounded however many
 * writes there are. (A NOTIFY lost to a crash costs nothing: workers also poll.)
 */
import type { Database } from './database.js';

export class CoalescedNotify {
  private inFlight = false;
  private again = false;

  constructor(
    private readonly db: Pick<Database, 'query'>,
    private readonly channel: string,
  ) {
    if (!/^[a-z_]+$/.test(channel)) throw new Error('invalid channel name');
  }

  poke(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    this.db
      .query(`SELECT pg_notify('${this.channel}', '')`)
      .catch(() => {
        // the database is unreachable: the workers' polling picks the rows up later
      })
      .finally(() => {
        this.inFlight = false;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }
}
