// Asset, decimals and amount rules of an initiation request (SPEC §6).
// Invariants:
// - Amounts stay strings end to end: they are checked with string logic only, never parsed into a
//   binary float, so a 100-digit amount is checked (and echoed) exactly.
// - Pure; messages never contain submitted values.

import type { FieldProblem } from '../text/json-pointer.js';
import { ASSET_PATTERN, type AssetTable, assetDecimals, isDecimals, MAX_DECIMALS } from './assets.js';

export const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

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
