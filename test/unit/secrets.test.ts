import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { masterKeyWarning, resolveSecrets } from '../../src/secrets.js';

const root = mkdtempSync(join(tmpdir(), 'trh-secrets-'));
after(() => rmSync(root, { recursive: true, force: true }));

const admin = `trh_admin_${randomBytes(24).toString('base64url')}`;
const keyFile = (dir: string) => {
  const file = join(dir, 'hub-master.key');
  writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return file;
};

it('warns when the embedded master key file sits inside HUB_DATA_DIR, and not when it is kept elsewhere', () => {
  const dataDir = join(root, 'data');
  const generated = resolveSecrets(loadConfig({ HUB_DATA_DIR: dataDir, HUB_ADMIN_KEY: admin }));
  assert.equal(generated.masterKeyInDataDir, join(dataDir, 'master.key'));
  assert.match(masterKeyWarning(generated)!, /master\.key is inside HUB_DATA_DIR.*HUB_MASTER_KEY_FILE/);

  const inside = keyFile(dataDir);
  const set = resolveSecrets(
    loadConfig({ HUB_DATA_DIR: dataDir, HUB_ADMIN_KEY: admin, HUB_MASTER_KEY_FILE: inside }),
  );
  assert.equal(set.masterKeyInDataDir, inside);

  const outside = keyFile(root);
  const moved = resolveSecrets(
    loadConfig({ HUB_DATA_DIR: dataDir, HUB_ADMIN_KEY: admin, HUB_MASTER_KEY_FILE: outside }),
  );
  assert.equal(masterKeyWarning(moved), undefined);
  const fromEnv = resolveSecrets(
    loadConfig({
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_KEY: admin,
      HUB_MASTER_KEY: randomBytes(32).toString('base64'),
    }),
  );
  assert.equal(masterKeyWarning(fromEnv), undefined);
  const server = resolveSecrets(
    loadConfig({
      DATABASE_URL: 'postgres://127.0.0.1/x',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_KEY: admin,
      HUB_MASTER_KEY_FILE: inside,
    }),
  );
  assert.equal(masterKeyWarning(server), undefined, 'PostgreSQL has no data directory to copy');
});
