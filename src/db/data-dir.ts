/**
 * The embedded data directory holds the database and, unless they come from the environment, the
 * operator and master keys: only the hub's user may enter it. It is created 0700, and one that
 * already exists (made by an operator, a volume, an older build) is made 0700 at every start.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { ConfigError } from '../config.js';

export function privateDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch (err) {
    throw new ConfigError(
      `HUB_DATA_DIR ${dir} cannot be made private (mode 0700): ${(err as Error).message}`,
    );
  }
}
