// TRP 3.2.1 wire messages: schemas, types, header names, and the checks a JSON schema cannot say.
// Invariants:
// - Two schemas per message where direction matters. Inbound ones (`Trp…`) leave
//   `additionalProperties` open: TRP peers add fields (TRISA adds none, others add vendor data,
//   extensions add more), and refusing them would refuse valid transfers. Outbound ones
//   (`Trp…Out`) are closed: we send exactly the spec's fields, so peers with strict decoders
//   (TRISA's handler refuses unknown fields) accept us.
// - Inbound, a member set to `null` counts as absent (some serialisers write every field), except
//   that a lone `{ "rejected": null }` or `{ "canceled": null }` is a rejection or cancellation
//   without a comment. "Exactly one of" is then decided on what is present.
// - Problems are `{ path, message }` with JSON pointers from the body root; messages never repeat
//   submitted values (inquiries carry personal data).
// - Pure: no I/O.

import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';

export const TRP_VERSION = '3.2.1';
/** Header names, lower-case as the spec writes them (HTTP header names are case-insensitive). */
export const TRP_HEADER = {
  apiVersion: 'api-version',
  requestIdentifier: 'request-identifier',
  apiExtensions: 'api-extensions',
  contentType: 'content-type',
} as const;
export const TRP_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Discoverability endpoints (optional for peers), at the root of the peer's host. */
export const TRP_DISCOVERY_PATH = {
  identity: '/identity',
  version: '/version',
  uptime: '/uptime',
  extensions: '/extensions',
} as const;

const MAX_URL = 2048;
const MAX_TEXT = 65536;
const LEI = '^[A-Z0-9]{18}[0-9]{2}$';
// ISO 24165: eight characters without vowels or Y, not starting with 0, plus a check character.
const DTI = '^[1-9B-DF-HJ-NP-TV-XZ][0-9B-DF-HJ-NP-TV-XZ]{8}$';
const closed = { additionalProperties: false } as const;

const Url = Type.String({ minLength: 1, maxLength: MAX_URL });
const HttpsUrl = Type.String({ pattern: '^https://[^\\s]+$', maxLength: MAX_URL });
const Members = Type.Record(Type.String(), Type.Unknown());
const Address = Type.String({ minLength: 1, maxLength: 256, description: 'Where to pay.' });

// ---- Inquiry ---------------------------------------------------------------------------------

export const TrpAsset = Type.Object({
  dti: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{9}$', description: 'ISO 24165 DTI.' })),
  slip0044: Type.Optional(
    Type.Union(
      [Type.Integer({ minimum: 0, maximum: 0x7fffffff }), Type.String({ minLength: 1, maxLength: 32 })],
      {
        description: 'SLIP-0044 coin type; TRISA sends the coin symbol ("BTC") instead.',
      },
    ),
  ),
});
export type TrpAsset = Static<typeof TrpAsset>;

// The IVMS101 identity payload (2020 field names); the IVMS101 module checks what is inside.
const ivms101Members = {
  originator: Members,
  beneficiary: Members,
  originatingVASP: Type.Optional(Members),
  beneficiaryVASP: Type.Optional(Members),
  transferPath: Type.Optional(Members),
  payloadMetadata: Type.Optional(Members),
};

export const TrpInquiry = Type.Object({
  asset: TrpAsset,
  amount: Type.Union([Type.Number(), Type.String({ maxLength: 100 })], {
    description: 'A digit string in the smallest unit, or (TRISA, Envoy) a JSON number in whole units.',
  }),
  callback: Url,
  // Any IVMS101 dialect (SPEC §18): the IVMS101 module normalises and checks what is inside.
  IVMS101: Members,
  extensions: Type.Optional(Members),
});
export type TrpInquiry = Static<typeof TrpInquiry>;

export const TrpAssetOut = Type.Union([
  Type.Object({ dti: Type.String({ pattern: DTI }) }, closed),
  Type.Object({ slip0044: Type.Integer({ minimum: 0, maximum: 0x7fffffff }) }, closed),
]);
export const TrpInquiryOut = Type.Object(
  {
    asset: TrpAssetOut,
    amount: Type.Union([
      Type.String({ pattern: '^[1-9][0-9]*$', maxLength: 100 }),
      Type.Number({ exclusiveMinimum: 0 }),
    ]),
    callback: HttpsUrl,
    IVMS101: Type.Object(ivms101Members, closed),
    extensions: Type.Optional(Members),
  },
  closed,
);
export type TrpInquiryOut = Static<typeof TrpInquiryOut>;

// ---- Resolution (inquiry response, or POST to the originator's callback) ----------------------

export const TrpApproval = Type.Object({ address: Address, callback: Url });
export const TrpResolution = Type.Object({
  version: Type.Optional(Type.String({ maxLength: 32 })),
  approved: Type.Optional(TrpApproval),
  rejected: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
});

export const TrpVersionOnlyOut = Type.Object({ version: Type.String({ minLength: 1 }) }, closed);
export const TrpApprovedOut = Type.Object(
  { approved: Type.Object({ address: Address, callback: HttpsUrl }, closed) },
  closed,
);
export const TrpRejectedOut = Type.Object(
  { rejected: Type.String({ minLength: 1, maxLength: MAX_TEXT }) },
  closed,
);
/** What we POST to a peer's callback. */
export const TrpResolutionOut = Type.Union([TrpApprovedOut, TrpRejectedOut]);
/** What we answer an inquiry with: undecided (version only) or decided at once. */
export const TrpInquiryResponseOut = Type.Union([TrpVersionOnlyOut, TrpApprovedOut, TrpRejectedOut]);
export type TrpResolutionOut = Static<typeof TrpResolutionOut>;
export type TrpInquiryResponseOut = Static<typeof TrpInquiryResponseOut>;

export type TrpResolutionResult =
  | { kind: 'pending'; version: string }
  | { kind: 'approved'; address: string; callback: string }
  | { kind: 'rejected'; reason: string | null }; // null: no comment (absent, null or empty)

// ---- Confirmation (POST to the beneficiary's approval callback) -------------------------------

export const TrpConfirmation = Type.Object({
  txid: Type.Optional(Type.String({ maxLength: 1024 })),
  canceled: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
});
export const TrpConfirmationOut = Type.Union([
  Type.Object({ txid: Type.String({ minLength: 1, maxLength: 1024 }) }, closed),
  Type.Object({ canceled: Type.String({ minLength: 1, maxLength: MAX_TEXT }) }, closed),
]);
export type TrpConfirmationOut = Static<typeof TrpConfirmationOut>;
export type TrpConfirmationResult =
  | { kind: 'txid'; txid: string }
  | { kind: 'canceled'; reason: string | null };

// ---- Discoverability ---------------------------------------------------------------------------

export const TrpIdentity = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 512 })),
  lei: Type.Optional(Type.String({ maxLength: 64 })),
  x509: Type.Optional(Type.String({ maxLength: 65536 })),
});
export type TrpIdentity = Static<typeof TrpIdentity>;
export const TrpIdentityOut = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 512 }),
    lei: Type.Optional(Type.String({ pattern: LEI })),
    x509: Type.String({ pattern: '^-----BEGIN CERTIFICATE-----' }),
  },
  closed,
);
export type TrpIdentityOut = Static<typeof TrpIdentityOut>;

export const TrpVersionAnswer = Type.Object({
  version: Type.String({ maxLength: 32 }),
  vendor: Type.Optional(Type.String({ maxLength: 256 })),
});
export const TrpVersionAnswerOut = Type.Object(
  { version: Type.String({ minLength: 1 }), vendor: Type.String({ minLength: 1 }) },
  closed,
);
export const TrpExtensionsAnswer = Type.Object({
  required: Type.Array(Type.String()),
  supported: Type.Array(Type.String()),
});
export type TrpExtensionsAnswer = Static<typeof TrpExtensionsAnswer>;

// ---- Parsing -----------------------------------------------------------------------------------

export interface TrpProblem {
  path: string;
  message: string;
}
export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: TrpProblem[] };

const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');
// Unions report one error per branch; one sentence per union reads better.
const UNION_MESSAGES: Record<string, string> = {
  '/amount': 'must be a JSON number (whole units) or a string of digits (smallest unit)',
  '/asset/slip0044': 'must be a SLIP-0044 coin type (an integer) or a coin symbol',
};

/** Every problem `schema` finds in `value`, one per field, with JSON pointers from the root. */
export function trpSchemaProblems(schema: TSchema, value: unknown): TrpProblem[] {
  const errors = Value.Errors(schema, value);
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/anyOf/`);
  const out: TrpProblem[] = [];
  const seen = new Set<string>();
  const add = (path: string, message: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    out.push({ path, message });
  };
  for (const e of errors) {
    if (e.keyword === 'boolean') continue; // repeats an additionalProperties error
    if (unions.some((prefix) => e.schemaPath.startsWith(prefix))) continue;
    if (e.keyword === 'required') {
      for (const key of e.params.requiredProperties)
        add(`${e.instancePath}/${escapeToken(key)}`, 'is required');
    } else if (e.keyword === 'additionalProperties') {
      for (const key of e.params.additionalProperties) {
        add(`${e.instancePath}/${escapeToken(key)}`, 'is not part of the message');
      }
    } else if (e.keyword === 'anyOf') {
      add(e.instancePath, UNION_MESSAGES[e.instancePath] ?? 'has the wrong type or shape');
    } else {
      add(e.instancePath, e.message);
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A shallow copy without the members set to null, and the names of those members. */
function dropNulls(body: Record<string, unknown>): { rest: Record<string, unknown>; nulls: Set<string> } {
  const rest: Record<string, unknown> = {};
  const nulls = new Set<string>();
  for (const [key, value] of Object.entries(body)) {
    if (value === null) nulls.add(key);
    else rest[key] = value;
  }
  return { rest, nulls };
}

const notObject = (): Parsed<never> => ({
  ok: false,
  problems: [{ path: '', message: 'must be a JSON object' }],
});

function checkUrl(value: string, path: string, allowHttp: boolean): TrpProblem[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [{ path, message: 'must be an absolute URL' }];
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    return [{ path, message: allowHttp ? 'must be an http or https URL' : 'must be an https URL' }];
  }
  if (url.username !== '' || url.password !== '') {
    return [{ path, message: 'must not carry a user name or password' }];
  }
  return [];
}

export interface ParseOptions {
  /** Accept http callbacks (tests and demos without TLS); https only otherwise. */
  allowHttp?: boolean;
}

/**
 * Checks an inbound inquiry body: structure, exactly one asset identifier, the amount's form
 * (its value needs the asset's decimals: `parseTrpAmount`), and an https callback.
 */
export function parseInquiry(input: unknown, options: ParseOptions = {}): Parsed<TrpInquiry> {
  if (!isObject(input)) return notObject();
  const body = dropNulls(input).rest;
  if (isObject(body.asset)) body.asset = dropNulls(body.asset).rest;
  const problems = trpSchemaProblems(TrpInquiry, body);
  const reported = (path: string) => problems.some((p) => p.path === path || p.path.startsWith(`${path}/`));
  if (isObject(body.asset) && !reported('/asset')) {
    const count = Number('dti' in body.asset) + Number('slip0044' in body.asset);
    if (count !== 1) problems.push({ path: '/asset', message: 'must have exactly one of dti and slip0044' });
  }
  if (!reported('/amount')) {
    const amount = body.amount;
    if (typeof amount === 'number' && !(Number.isFinite(amount) && amount > 0)) {
      problems.push({ path: '/amount', message: 'must be greater than zero' });
    } else if (typeof amount === 'string' && !/^[0-9]+$/.test(amount)) {
      problems.push({ path: '/amount', message: 'a string amount must be digits only (the smallest unit)' });
    } else if (typeof amount === 'string' && !/[1-9]/.test(amount)) {
      problems.push({ path: '/amount', message: 'must be greater than zero' });
    }
  }
  if (typeof body.callback === 'string' && !reported('/callback')) {
    problems.push(...checkUrl(body.callback, '/callback', options.allowHttp === true));
  }
  // The value is the body with its null members (top level and asset) removed.
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: body as TrpInquiry };
}

/**
 * Reads a resolution: the body of an inquiry's answer, or one POSTed to our callback. Exactly one
 * of `version` (undecided), `approved` and `rejected` must be present.
 */
export function parseResolution(body: unknown, options: ParseOptions = {}): Parsed<TrpResolutionResult> {
  if (!isObject(body)) return notObject();
  const { rest, nulls } = dropNulls(body);
  const present = ['version', 'approved', 'rejected'].filter((key) => key in rest);
  if (present.length === 0 && nulls.has('rejected'))
    return { ok: true, value: { kind: 'rejected', reason: null } };
  if (present.length !== 1) {
    const message =
      present.length === 0
        ? 'must have one of version, approved and rejected'
        : 'must have only one of version, approved and rejected';
    return { ok: false, problems: [{ path: '', message }] };
  }
  const problems = trpSchemaProblems(TrpResolution, rest);
  if (isObject(rest.approved) && typeof rest.approved.callback === 'string') {
    problems.push(...checkUrl(rest.approved.callback, '/approved/callback', options.allowHttp === true));
  }
  if (problems.length > 0) return { ok: false, problems };
  const value = rest as Static<typeof TrpResolution>;
  if (value.approved) {
    return {
      ok: true,
      value: { kind: 'approved', address: value.approved.address, callback: value.approved.callback },
    };
  }
  if (value.rejected !== undefined) {
    return { ok: true, value: { kind: 'rejected', reason: value.rejected === '' ? null : value.rejected } };
  }
  return { ok: true, value: { kind: 'pending', version: value.version ?? '' } };
}

/** Reads a confirmation POSTed to our approval callback: exactly one of `txid` and `canceled`. */
export function parseConfirmation(body: unknown): Parsed<TrpConfirmationResult> {
  if (!isObject(body)) return notObject();
  const { rest, nulls } = dropNulls(body);
  const present = ['txid', 'canceled'].filter((key) => key in rest);
  if (present.length === 0 && nulls.has('canceled'))
    return { ok: true, value: { kind: 'canceled', reason: null } };
  if (present.length !== 1) {
    const message =
      present.length === 0 ? 'must have one of txid and canceled' : 'must have only one of txid and canceled';
    return { ok: false, problems: [{ path: '', message }] };
  }
  const problems = trpSchemaProblems(TrpConfirmation, rest);
  if (typeof rest.txid === 'string' && rest.txid.trim() === '') {
    problems.push({ path: '/txid', message: 'must not be empty' });
  }
  if (problems.length > 0) return { ok: false, problems };
  const value = rest as Static<typeof TrpConfirmation>;
  return value.txid !== undefined
    ? { ok: true, value: { kind: 'txid', txid: value.txid } }
    : {
        ok: true,
        value: { kind: 'canceled', reason: value.canceled === '' ? null : (value.canceled ?? null) },
      };
}
