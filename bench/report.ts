/**
 * The bench's results: rows gathered by the scenarios, printed as one markdown table and written
 * to bench/results/latest.json as `{ scale, backend, at, rows }`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from './lib/measure.js';
import { BACKEND, ROOT, SCALE } from './lib/options.js';

export interface Row {
  scenario: string;
  value: number;
  unit: string;
  p50?: number;
  p99?: number;
  errors?: number;
  /** What `ratio` divides by, e.g. "naive insert". */
  baseline?: string;
  ratio?: number;
  note?: string;
}

export const rows: Row[] = [];

export function report(): void {
  const fmt = (x: number | undefined, d = 1) =>
    x === undefined || Number.isNaN(x) ? '' : String(round(x, d));
  const lines = [
    `### Travel Rule Hub benchmark (${SCALE.name}, ${BACKEND}, ${new Date().toISOString()})`,
    '',
    '| scenario | value | unit | p50 ms | p99 ms | errors | ratio | note |',
    '|---|---:|---|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${fmt(r.value)} | ${r.unit} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors ?? ''} | ${
          r.ratio === undefined ? '' : `${round(r.ratio, 2)}× ${r.baseline}`
        } | ${r.note ?? ''} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/latest.json'),
    `${JSON.stringify({ scale: SCALE, backend: BACKEND, at: new Date().toISOString(), rows }, null, 2)}\n`,
  );
}
