/** Opens the configured database (PostgreSQL when DATABASE_URL is set, else PGlite) and migrates it. */
import type { Config } from '../config.js';
import type { Database } from './database.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export async function openDatabase(config: Config, options: { migrate?: boolean } = {}): Promise<Database> {
  const db = config.databaseUrl ? await openPostgres(config.databaseUrl) : await openPglite(config.dataDir);
  if (options.migrate !== false) {
    try {
      await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  return db;
}
