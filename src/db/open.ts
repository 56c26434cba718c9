/** Opens the configured database (PostgreSQL when DATABASE_URL is set, else PGlite) and migrates it. */
import type { Config } from '../config.js';
import type { Database } from './database.js';
import { migrate } from './migrate.js';

export async function openDatabase(config: Config, options: { migrate?: boolean } = {}): Promise<Database> {
  // Only the driver in use is loaded.
  const db = config.databaseUrl
    ? await (await import('./postgres.js')).openPostgres(config.databaseUrl)
    : await (await import('./pglite.js')).openPglite(config.dataDir);
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
