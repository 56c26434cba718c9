/**
 * A small read-through cache for what every request needs from the directory: API-key
 * look-ups, organizations by id and DID, and webhook secrets. Correctness rules:
 * - every directory write clears it in this process when its transaction commits, and the
 *   database's NOTIFY hub_directory (migration 0004) clears it in every other process;
 * - a read that raced with a clear is not stored (generation check), so a stale value can
 *   never outlive the change that made it stale;
 * - entries expire after `ttlMs` anyway, bounding staleness if a notification is lost;
 * - only hits are cached: unknown keys and DIDs always go to the database.
 */
export class DirectoryCache {
  private generation = 0;
  private readonly entries = new Map<string, { value: unknown; expires: number }>();

  constructor(
    private readonly ttlMs = 5000,
    private readonly maxEntries = 20_000,
  ) {}

  async get<T>(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value as T;
    const generation = this.generation;
    const value = await load();
    if (value !== undefined && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    }
    return value;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
