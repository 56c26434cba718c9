// Asset, decimals and amount rules of an initiation request (SPEC §6).
// Invariants:
// - Amounts stay strings end to end: they are checked with string logic only, never parsed into a
//   binary float, so a 100-digit amount is checked (and echoed) exactly.
// - The asset table is read once, at start, and validated there: a broken table fails the start,
//   not a request. Lookups are case-insensitive (keys are stored upper-case).
// - Pure apart from `loadAssetTable`; messages never contain submitted values.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FieldProblem } from '../text/json-pointer.js';

/** Decimals by asset (`<chain>-<asset>`, upper-case). */
export type AssetTable = Map<string, number>;

export const ASSET_PATTERN = /^[A-Za-z0-9]+-[A-Za-z0-9.]+$/;
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
export const MAX_DECIMALS = 36;

const DEFAULT_ASSETS = new URL('../../assets.json', import.meta.url);

function isDecimals(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_DECIMALS;
}

/**
 * Reads the asset table, a JSON object `{ "<chain>-<asset>": decimals }`. The default is the
 * `assets.json` shipped at the package root (the same relative path from `src/` and `dist/`).
 * Throws with a message naming the file and the bad entry (not its value, for short log lines).
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
    throw new Error(`asset table ${name}: must be a JSON object of asset → decimals`);
  }
  const table: AssetTable = new Map();
  for (const [asset, decimals] of Object.entries(raw)) {
    if (!ASSET_PATTERN.test(asset)) throw new Error(`asset table ${name}: "${asset}" is not <chain>-<asset>`);
    if (!isDecimals(decimals)) {
      throw new Error(`asset table ${name}: "${asset}" must have an integer 0–${MAX_DECIMALS} as decimals`);
    }
    const key = asset.toUpperCase();
    if (table.has(key))
      throw new Error(`asset table ${name}: "${asset}" is listed twice (case-insensitively)`);
    table.set(key, decimals);
  }
  return table;
}

/** The table's decimals for an asset, whatever its case; `undefined` for unknown assets. */
export function assetDecimals(assets: AssetTable, asset: string): number | undefined {
  return assets.get(asset.toUpperCase());
}

export interface AssetAndAmount {
  transactionAsset: unknown;
  transactionAssetDecimals: unknown;
  transactionAmount: unknown;
}

/** Every problem with the three fields, with pointers from the request body root. */
export function validateAssetAndAmount(input: AssetAndAmount, assets: AssetTable): FieldProblem[] {
  const out: FieldProblem[] = [];
  const { transactionAsset: asset, transactionAssetDecimals: decimals, transactionAmount: amount } = input;

  const assetValid = typeof asset === 'string' && ASSET_PATTERN.test(asset);
  if (asset === undefined) out.push({ path: '/transactionAsset', message: 'is required' });
  else if (typeof asset !== 'string') out.push({ path: '/transactionAsset', message: 'must be a string' });
  else if (!assetValid) {
    out.push({
      path: '/transactionAsset',
      message: 'must be <chain>-<asset> of letters and digits (dots allowed in the asset), e.g. ETH-USDC',
    });
  }

  if (decimals === undefined) out.push({ path: '/transactionAssetDecimals', message: 'is required' });
  else if (typeof decimals !== 'number' || !Number.isInteger(decimals)) {
    out.push({ path: '/transactionAssetDecimals', message: 'must be an integer' });
  } else if (!isDecimals(decimals)) {
    out.push({ path: '/transactionAssetDecimals', message: `must be between 0 and ${MAX_DECIMALS}` });
  } else if (assetValid) {
    // Only known assets are pinned; an unknown asset's decimals are the originator's word (SPEC §6).
    const expected = assetDecimals(assets, asset);
    if (expected !== undefined && expected !== decimals) {
      out.push({
        path: '/transactionAssetDecimals',
        message: `must be ${expected} for ${asset.toUpperCase()}`,
      });
    }
  }

  if (amount === undefined) out.push({ path: '/transactionAmount', message: 'is required' });
  else if (typeof amount !== 'string') {
    out.push({
      path: '/transactionAmount',
      message: 'must be a string (amounts are sent as decimal strings)',
    });
  } else {
    const match = AMOUNT_PATTERN.exec(amount);
    if (match === null) {
      out.push({
        path: '/transactionAmount',
        message: 'must be a decimal number such as 12.5, without sign, exponent, grouping or leading zeros',
      });
    } else if (!/[1-9]/.test(amount)) {
      out.push({ path: '/transactionAmount', message: 'must be greater than zero' });
    } else if (isDecimals(decimals) && decimals > 0) {
      // Decimals 0 means a human-readable amount, so its precision is not limited (SPEC §6).
      const fraction = match[2] === undefined ? 0 : match[2].length - 1;
      if (fraction > decimals) {
        out.push({ path: '/transactionAmount', message: `must have at most ${decimals} fractional digits` });
      }
    }
  }
  return out;
}
