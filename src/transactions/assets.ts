/**
 * The asset table (SPEC §6, §16): per `<chain>-<asset>`, its decimals and, for the TRP bridge, its
 * TRP identifiers: a DTI (ISO 24165, tokens and coins) and a SLIP-0044 coin type (native coins).
 * Read once, at start, and validated there: a broken table fails the start, not a request.
 * Lookups are case-insensitive (keys are stored upper-case). An entry may be a bare number of
 * decimals, the table's first form.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface AssetInfo {
  decimals: number;
  dti?: string;
  slip0044?: number;
}

/** The table, by upper-case `<chain>-<asset>`. */
export type AssetTable = Map<string, AssetInfo>;

export const ASSET_PATTERN = /^[A-Za-z0-9]+-[A-Za-z0-9.]+$/;
export const MAX_DECIMALS = 36;
const DTI_PATTERN = /^[1-9B-DF-HJ-NP-TV-XZ][0-9B-DF-HJ-NP-TV-XZ]{8}$/;

const DEFAULT_ASSETS = new URL('../../assets.json', import.meta.url);

export function isDecimals(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_DECIMALS;
}

/**
 * Reads the asset table, a JSON object `{ "<chain>-<asset>": { decimals, dti?, slip0044? } }` (or
 * `{ "<chain>-<asset>": decimals }`). The default is the `assets.json` shipped at the package root
 * (the same relative path from `src/` and `dist/`). Throws with a message naming the file and the
 * bad entry (not its value, for short log lines).
 */
export function loadAssetTable(file: string | URL = DEFAULT_ASSETS): AssetTable {
  const name = file instanceof URL ? fileURLToPath(file) : file;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new Error(`asset table ${name}: cannot read it as JSON (${(cause as Error).message})`, { cause });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`asset table ${name}: must be a JSON object of asset → { decimals, dti?, slip0044? }`);
  }
  const table: AssetTable = new Map();
  for (const [asset, entry] of Object.entries(raw)) {
    if (!ASSET_PATTERN.test(asset)) throw new Error(`asset table ${name}: "${asset}" is not <chain>-<asset>`);
    const info = typeof entry === 'number' ? { decimals: entry } : entry;
    if (typeof info !== 'object' || info === null || !isDecimals((info as AssetInfo).decimals)) {
      throw new Error(`asset table ${name}: "${asset}" must have an integer 0–${MAX_DECIMALS} as decimals`);
    }
    const { decimals, dti, slip0044, ...rest } = info as AssetInfo & Record<string, unknown>;
    if (Object.keys(rest).length > 0) throw new Error(`asset table ${name}: "${asset}" has unknown fields`);
    if (dti !== undefined && (typeof dti !== 'string' || !DTI_PATTERN.test(dti))) {
      throw new Error(`asset table ${name}: "${asset}" has a dti that is not an ISO 24165 identifier`);
    }
    if (slip0044 !== undefined && !(Number.isInteger(slip0044) && slip0044 >= 0 && slip0044 < 2 ** 31)) {
      throw new Error(`asset table ${name}: "${asset}" has a slip0044 that is not a coin type`);
    }
    const key = asset.toUpperCase();
    if (table.has(key))
      throw new Error(`asset table ${name}: "${asset}" is listed twice (case-insensitively)`);
    table.set(key, {
      decimals,
      ...(dti === undefined ? {} : { dti }),
      ...(slip0044 === undefined ? {} : { slip0044 }),
    });
  }
  return table;
}

/** The table's decimals for an asset, whatever its case; `undefined` for unknown assets. */
export function assetDecimals(assets: AssetTable, asset: string): number | undefined {
  return assets.get(asset.toUpperCase())?.decimals;
}

/** The asset a TRP peer names by DTI or SLIP-0044 coin type (only a native coin has one). */
export function assetOfTrp(assets: AssetTable, id: { dti?: string; slip0044?: number }): string | undefined {
  for (const [key, info] of assets) {
    if (
      id.dti !== undefined ? info.dti === id.dti : id.slip0044 !== undefined && info.slip0044 === id.slip0044
    ) {
      return key;
    }
  }
  return undefined;
}
