/**
 * The rules of an initiation request that a JSON schema cannot say (SPEC §6): the protocol
 * table of the interface document, DID and e-mail syntax, amounts against the asset table and
 * IVMS101. Pure. Works on the raw body, so it can run even when the schema found problems:
 * the client gets every problem at once. Rules for a field the schema already rejected are
 * skipped, so each problem is reported once.
 */
import type { FieldProblem } from '../http/errors.js';
import { type Ivms101Message, readIvms101 } from '../ivms101/message.js';
import { isDid, isEmail } from '../text/formats.js';
import { validateAssetAndAmount } from './amount.js';
import type { AssetTable } from './assets.js';

type Body = Record<string, unknown>;

export interface CheckedInitiation {
  /** Every problem, the schema's first; empty when the request is valid. */
  problems: FieldProblem[];
  /** `pii` in canonical form (SPEC §18), as the hub keeps it. */
  pii: Ivms101Message;
}

export function validateInitiation(
  body: unknown,
  assets: AssetTable,
  schemaProblems: FieldProblem[],
): CheckedInitiation {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { problems: schemaProblems, pii: {} };
  const b = body as Body;
  const found: FieldProblem[] = [];
  const protocol = b.protocol;

  if (protocol === 'MAIN' || protocol === 'BASIC') {
    if (b.beneficiaryVASPdid === undefined) {
      found.push({ path: '/beneficiaryVASPdid', message: `is required for ${protocol}` });
    }
    if (b.notificationEmail !== undefined) {
      found.push({ path: '/notificationEmail', message: `is not used for ${protocol}; remove it` });
    }
  } else if (protocol === 'NOTIFY') {
    if (b.beneficiaryVASPid === undefined)
      found.push({ path: '/beneficiaryVASPid', message: 'is required for NOTIFY' });
    if (b.notificationEmail === undefined)
      found.push({ path: '/notificationEmail', message: 'is required for NOTIFY' });
  } else if (protocol === 'TRP') {
    if (b.travelAddress === undefined) found.push({ path: '/travelAddress', message: 'is required for TRP' });
    for (const field of ['beneficiaryVASPid', 'beneficiaryVASPdid', 'notificationEmail']) {
      if (b[field] !== undefined)
        found.push({ path: `/${field}`, message: 'is not used for TRP; remove it' });
    }
  }
  if (protocol !== 'TRP' && b.travelAddress !== undefined) {
    found.push({ path: '/travelAddress', message: 'is used only for TRP; remove it' });
  }
  const info = b.transactionBlockchainInfo as Body | undefined;
  if (protocol !== 'TRP' && typeof info === 'object' && info !== null && info.destination === undefined) {
    found.push({ path: '/transactionBlockchainInfo/destination', message: 'is required' });
  }
  if (typeof b.beneficiaryVASPdid === 'string' && !isDid(b.beneficiaryVASPdid)) {
    found.push({ path: '/beneficiaryVASPdid', message: 'must be a DID such as did:web:vasp.example' });
  }
  if (typeof b.notificationEmail === 'string' && !isEmail(b.notificationEmail)) {
    found.push({ path: '/notificationEmail', message: 'must be an e-mail address' });
  }
  found.push(
    ...validateAssetAndAmount(
      {
        transactionAsset: b.transactionAsset,
        transactionAssetDecimals: b.transactionAssetDecimals,
        transactionAmount: b.transactionAmount,
      },
      assets,
    ),
  );
  let pii: Ivms101Message = {};
  if (typeof b.pii === 'object' && b.pii !== null && !Array.isArray(b.pii)) {
    const read = readIvms101(b.pii);
    for (const problem of read.problems) found.push(problem);
    pii = read.message;
  }

  const reported = new Set(schemaProblems.map((p) => p.path));
  return { problems: [...schemaProblems, ...found.filter((p) => !reported.has(p.path))], pii };
}

/**
 * A decline's problems: the schema's (the category is an enum there) and a description that is
 * only white space, reported together.
 */
export function validateDecline(body: unknown, schemaProblems: FieldProblem[]): FieldProblem[] {
  const reason = (body as { reason?: { description?: unknown } } | null)?.reason;
  const description = typeof reason === 'object' && reason !== null ? reason.description : undefined;
  const blank = typeof description === 'string' && description.trim() === '';
  return blank
    ? [...schemaProblems, { path: '/reason/description', message: 'must not be empty' }]
    : schemaProblems;
}
