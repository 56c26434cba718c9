/** Opens the configured database (PostgreSQL when DATABASE_URL is set, else PGlite) and migrates it. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config.js';
import type { Database } from './database.js';
import { migrate } from './migrate.js';

export async function openDatabase(
  config: Config,
  options: {
    migrate?: boolean;
    masterKey?: Buffer;
    previousMasterKeys?: readonly Buffer[];
    onMigrated?: (applied: string[]) => void;
  } = {},
): Promise<Database> {
  // Only the driver in use is loaded.
  const wasm = config.databaseUrl ? undefined : compilePgliteWasm();
  const db = config.databaseUrl
    ? await (await import('./postgres.js')).openPostgres(config.databaseUrl)
    : await (await import('./pglite.js')).openPglite(config.dataDir, wasm);
  if (options.migrate !== false) {
    try {
      const applied = await migrate(db, {
        masterKey: options.masterKey,
        previousMasterKeys: options.previousMasterKeys,
      }); // not inside `?.(…)`: that would skip it without a listener
      options.onMigrated?.(applied);
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  return db;
}

/**
 * Starts compiling PGlite's WebAssembly on V8's background threads at once, before the driver's
 * and the app's modules load, so that the compilation overlaps their loading.
 *
 * On two cores or fewer, one background compilation task instead of V8's default (one per
 * worker thread): V8 compiles the functions PGlite runs most with its optimizing compiler in the
 * background, and on two cores several such tasks take the CPU from the main thread while it
 * opens the database. The setting is the process's; with more cores V8's default stays.
 */
function compilePgliteWasm(): Promise<WebAssembly.Module> {
  if (availableParallelism() <= 2) setFlagsFromString('--wasm-num-compilation-tasks=1');
  const file = fileURLToPath(import.meta.resolve('@electric-sql/pglite/pglite.wasm'));
  const compiling = WebAssembly.compile(readFileSync(file));
  compiling.catch(() => {}); // awaited by openPglite; this only keeps an early failure from being "unhandled"
  return compiling;
}

/** The start-up line naming the database, and the migrations this start applied (if any). */
export function databaseLine(config: Config, applied: readonly string[]): string {
  const where = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  return `Database: ${where}${applied.length === 0 ? '' : ` (migrations applied now: ${applied.join(', ')})`}`;
}
