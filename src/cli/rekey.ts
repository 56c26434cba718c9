/**
 * `travel-rule-hub rekey`: re-seals everything under the current master key (src/keys/rekey.ts),
 * showing progress on stderr: a bar redrawn in place on a terminal, a plain line per batch
 * otherwise (logs, CI). stdout gets the command's JSON result, like every operator command.
 */
import { KeyRing } from '../crypto/envelope.js';
import type { Database } from '../db/database.js';
import { type RekeyProgress, rekey } from '../keys/rekey.js';

const BAR_WIDTH = 30;

export async function runRekey(
  db: Database,
  masterKey: Buffer,
  previous: readonly Buffer[],
  o: { batchSize: number; pause: number },
): Promise<{ keyId: string; resealed: number }> {
  const keys = KeyRing.of(masterKey, previous);
  const tty = process.stderr.isTTY === true;
  process.stderr.write(`rekey: re-sealing under master key ${keys.currentId}\n`);
  const result = await rekey({
    transaction: (fn) => db.transaction(fn),
    keys,
    batchSize: o.batchSize,
    pauseMs: o.pause,
    onProgress: (p) => process.stderr.write(tty ? `\r${bar(p)}` : `rekey: ${line(p)}\n`),
  });
  if (tty) process.stderr.write('\n');
  return { keyId: keys.currentId, resealed: result.done };
}

function line(p: RekeyProgress): string {
  const percent = p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total);
  return `${p.done}/${p.total} re-sealed (${percent}%)`;
}

function bar(p: RekeyProgress): string {
  const filled = p.total === 0 ? BAR_WIDTH : Math.round((BAR_WIDTH * p.done) / p.total);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${line(p)}`;
}
