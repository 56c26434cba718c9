/**
 * Exports stream (SPEC §14): 100,000 audit rows (about 37 MiB) go out as JSON Lines while the
 * process's live heap (what remains after a full collection) grows by a few MiB at most: rows are
 * read in batches and written as the client takes them.
 */
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { eachBackend } from '../harness.js';

const ROWS = 100_000;
// Live memory is what the heap holds after a full collection; garbage not yet collected is not.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

eachBackend(
  'audit export memory',
  (hub) => {
    it(`streams ${ROWS.toLocaleString('en')} rows with a flat heap`, async () => {
      // Rows as an owner could load them (the links do not matter to an export).
      await hub().db.transaction(async (tx) => {
        await tx.query('SET LOCAL session_replication_role = replica');
        await tx.query(
          `INSERT INTO audit_events (seq, actor, action, subject_type, subject_id, details, prev_hash, hash)
         SELECT s, 'operator:load', 'organization.updated', 'organization', md5(s::text),
                jsonb_build_object('fields', jsonb_build_array('name', 'contactEmail'), 'n', s),
                repeat('0', 64), repeat('a', 64)
           FROM generate_series(1, $1::int) s`,
          [ROWS],
        );
      });
      gc();
      const base = process.memoryUsage().heapUsed;
      let peak = base;
      let bytes = 0;
      let lines = 0;
      let tail = '';
      let chunks = 0;
      // node:http rather than fetch: it reads from the socket only as fast as this loop consumes.
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        get(
          `${hub().url}/v1/admin/audit?format=jsonl`,
          { headers: { 'x-api-key': hub().adminKey } },
          resolve,
        ).on('error', reject),
      );
      assert.equal(res.statusCode, 200);
      for await (const chunk of res as AsyncIterable<Buffer>) {
        bytes += chunk.byteLength;
        const parts = (tail + chunk.toString('utf8')).split('\n');
        tail = parts.pop()!;
        lines += parts.length;
        if (++chunks % 50 === 0) {
          gc();
          peak = Math.max(peak, process.memoryUsage().heapUsed);
        }
      }
      assert.equal(lines, ROWS + 1, 'every row and the checkpoint');
      const growth = peak - base;
      process.stderr.write(
        `export: ${(bytes / 2 ** 20).toFixed(1)} MiB, live heap growth at most ${(growth / 2 ** 20).toFixed(1)} MiB\n`,
      );
      assert.ok(bytes > 30 * 2 ** 20, 'the export is large');
      assert.ok(growth < bytes / 4, `heap grew ${growth} bytes for an export of ${bytes}`);
    });
  },
  { HUB_WORKER: 'false' },
);
