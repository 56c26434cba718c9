/**
 * Generators for the HTTP fuzz suite (test/http/fuzz.test.ts), built on fast-check: request
 * bodies as bytes on the wire, from valid ones (read off a route's OpenAPI schema or made by a
 * suite's own factory) through mutated ones (fields dropped, added, retyped; odd Unicode; huge
 * strings and arrays; deep nesting) to text that is not JSON at all, sent under odd content types.
 * Everything here is pure and driven by fast-check's seeded random source, so a failure replays
 * from its seed and path. Sizes stay near the hub's limits (256 KiB bodies), not far past them.
 */
import fc from 'fast-check';

/** The hub's request body limit (SPEC §4): bodies are generated on both sides of it. */
export const BODY_LIMIT = 256 * 1024;

type Step = string | number;
type JsonObject = Record<string, unknown>;

/** A request body as it goes on the wire: `payload` undefined sends none, `contentType` undefined no header. */
export interface Body {
  /** Which generator made it, for failure messages. */
  kind: string;
  contentType?: string;
  payload?: string | Uint8Array;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Sets an own, enumerable member, `__proto__` included (plain assignment would set the prototype). */
function put(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `value` as a JSON body; `undefined` sends none. */
export const jsonBody = (kind: string, value: unknown): Body =>
  value === undefined
    ? { kind: `${kind} (no body)` }
    : { kind, contentType: 'application/json', payload: JSON.stringify(value) };

// --- odd values ---------------------------------------------------------------------------------

/** Texts that have broken parsers, databases, terminals and log viewers before. */
const NASTY = [
  '\u202e',
  'abc\u202edef',
  '\u2066\u2069',
  '\u200b',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\udc00\ud800',
  '\u0000',
  'a\u0000b',
  '\r\n',
  '\u0085',
  '\u2028\u2029',
  '\u001b[31m',
  '\u007f',
  '😀',
  '👩‍👩‍👧‍👦',
  'e\u0301',
  'İ',
  'ß',
  '\u00a0',
  ' ',
  '',
  'ｆｕｌｌ',
  '\uffff',
  '\ufffe',
  '\u{10ffff}',
  'null',
  'undefined',
  '0',
  '-0',
  '1e309',
  'NaN',
  '99999999999999999999999999999999999999',
  '-1',
  '0x10',
  '2026-02-30T25:61:61Z',
  "'; DROP TABLE organizations; --",
  '%s%n%x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection probe, on purpose
  '${7*7}',
  '<script>alert(1)</script>',
  '\\',
  '"',
  '/v1/admin',
  'did:web:',
  '00000000-0000-0000-0000-000000000000',
];

/** Any UTF-16 code unit, lone surrogates included (JSON.stringify writes those as \\udXXX escapes). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: codeUnit, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...NASTY), fc.string({ maxLength: 20 }), fc.constantFrom(...NASTY))
      .map(([a, b, c]) => a + b + c),
  },
);

/** A value of any JSON type, odd ones preferred. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      2 ** 53,
      2 ** 64,
      [],
      {},
    ),
  },
  { weight: 1, arbitrary: fc.integer() },
);

/** Member names that mean something to JavaScript, JSON Schema or the hub. */
const oddKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '$ref',
    'pii',
    'status',
    'id',
    'organizationId',
    'transactionRef',
    '',
  ),
  oddString,
  fc.string({ maxLength: 12 }),
);

// --- mutations of a valid body --------------------------------------------------------------------

type Mutation =
  | { op: 'drop'; at: number }
  | { op: 'add'; at: number; key: string; value: unknown }
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'huge-string'; at: number; length: number; unit: string }
  | { op: 'huge-array'; at: number; length: number; element: 'copy' | 'number' | 'object' | 'string' }
  | { op: 'deep'; at: number; depth: number; kind: 'array' | 'object' }
  | { op: 'prototype'; at: number; path: 'proto' | 'constructor' };

const at = fc.nat();
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('drop' as const), at }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('add' as const), at, key: oddKey, value: anyValue }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('replace' as const), at, value: anyValue }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('huge-string' as const),
      at,
      length: fc.constantFrom(70_000, 200_000, 255_000, 300_000),
      unit: fc.constantFrom('x', 'é', '😀', '\u202e', '\ud800', '\u0000', '"'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('huge-array' as const),
      at,
      length: fc.integer({ min: 1_000, max: 20_000 }),
      element: fc.constantFrom('copy' as const, 'number' as const, 'object' as const, 'string' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('deep' as const),
      at,
      depth: fc.integer({ min: 50, max: 1_500 }),
      kind: fc.constantFrom('array' as const, 'object' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('prototype' as const),
      at,
      path: fc.constantFrom('proto' as const, 'constructor' as const),
    }),
  },
);

/** Places below this depth are not picked: a mutation there adds nothing, and there may be thousands. */
const MAX_PLACE_DEPTH = 32;

/** Every place in a value down to MAX_PLACE_DEPTH, the root (`[]`) first, in document order. */
function locations(value: unknown): Step[][] {
  const out: Step[][] = [];
  // Iterative, children pushed in reverse so they come out in document order.
  const stack: { v: unknown; path: Step[] }[] = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    out.push(path);
    if (path.length >= MAX_PLACE_DEPTH) continue;
    const entries: [Step, unknown][] = Array.isArray(v)
      ? v.map((c, i) => [i, c])
      : isObject(v)
        ? Object.entries(v)
        : [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, c] = entries[i]!;
      stack.push({ v: c, path: [...path, k] });
    }
  }
  return out;
}

function get(root: unknown, path: Step[]): unknown {
  let v = root;
  for (const k of path) v = (v as Record<Step, unknown>)[k];
  return v;
}

/** `root` with the value at `path` replaced; `undefined` as value removes it. */
function set(root: unknown, path: Step[], value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = get(root, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(Number(key), 1);
    else parent[Number(key)] = value;
  } else if (isObject(parent)) {
    if (value === undefined) delete parent[key];
    else put(parent, String(key), value);
  }
  return root;
}

const repeatTo = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length));

function deepValue(depth: number, kind: 'array' | 'object', leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

function hugeArray(length: number, element: string, like: unknown): unknown[] {
  const sample = Array.isArray(like) ? like[0] : like;
  const one = element === 'copy' ? (sample ?? 0) : element === 'number' ? 7 : element === 'object' ? {} : 'x';
  // As many as fit just under the body limit: the array is the stress, not the 413.
  const size = JSON.stringify(one)?.length ?? 4;
  const n = Math.max(1, Math.min(length, Math.floor((BODY_LIMIT - 8_192) / (size + 1))));
  return Array.from({ length: n }, () => structuredClone(one));
}

function applyMutation(root: unknown, m: Mutation): unknown {
  const places = locations(root);
  const path = places[m.at % places.length]!;
  const here = get(root, path);
  switch (m.op) {
    case 'drop':
      return set(root, path, undefined);
    case 'add': {
      if (isObject(here)) put(here, m.key, m.value);
      else if (Array.isArray(here)) here.push(m.value);
      else {
        const o: JsonObject = {};
        put(o, m.key, m.value);
        return set(root, path, o);
      }
      return root;
    }
    case 'replace':
      return set(root, path, m.value);
    case 'huge-string':
      return set(root, path, repeatTo(m.unit, m.length));
    case 'huge-array':
      return set(root, path, hugeArray(m.length, m.element, here));
    case 'deep':
      return set(root, path, deepValue(m.depth, m.kind, here ?? null));
    case 'prototype': {
      const target = isObject(here) ? here : {};
      const polluting = { polluted: true, toString: 'x' };
      if (m.path === 'proto') put(target, '__proto__', polluting);
      else put(target, 'constructor', { prototype: polluting });
      return isObject(here) ? root : set(root, path, target);
    }
  }
}

function mutate(valid: unknown, mutations: Mutation[]): unknown {
  // JSON.parse makes a fresh copy; `__proto__` members come back as own members.
  let v: unknown = valid === undefined ? {} : JSON.parse(JSON.stringify(valid));
  let deepened = false;
  for (const m of mutations) {
    // One deepening at most: nested in each other, they would overflow this process's own
    // JSON.stringify (the raw-text splices go deeper, as text).
    if (m.op === 'deep' && deepened) continue;
    deepened ||= m.op === 'deep';
    if (v === undefined) v = {};
    v = applyMutation(v, m);
  }
  return v;
}

// --- raw text -----------------------------------------------------------------------------------

/** Text that JSON.stringify cannot produce: deep nesting past any recursion limit, bad literals. */
const rawFragment: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'NaN',
      'Infinity',
      '-Infinity',
      'undefined',
      '01',
      '1.',
      '.5',
      '+1',
      '0x10',
      '1e400',
      '-1e400',
      '-0',
      "'single'",
      '"\\ud800"',
      '"\\udc00\\ud800"',
      '"\\u0000"',
      '"a\\u0000b"',
      '{"\\u0000":1}',
      '"\\x41"',
      '"\\u12"',
      '"\t"',
      '[1,]',
      '{"a":1,}',
      '{"a":1 "b":2}',
      '{"a":1,"a":2}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"__proto__":[]}',
      '/*comment*/1',
      '[',
      '{',
      '"',
      'tru',
      '\u00a01',
      '\ufeff1',
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        depth: fc.constantFrom(1_000, 10_000, 50_000, 100_000),
        kind: fc.constantFrom('array', 'object', 'mixed'),
      })
      .map(({ depth, kind }) => deepText(depth, kind)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 310, max: 100_000 }).map((n) => '9'.repeat(n)) },
);

/** `depth` levels of nesting as JSON text, built without recursion. */
export function deepText(depth: number, kind: string): string {
  if (kind === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const half = Math.floor(depth / 2);
  return `${'[{"a":'.repeat(half)}0${'}]'.repeat(half)}`;
}

const MARK = '\u0001fuzz-splice\u0001';

/** `valid` as JSON text with the value at one place (the `at`-th) replaced by `raw`. */
function spliceText(valid: unknown, at: number, raw: string): string {
  const base = valid === undefined ? {} : JSON.parse(JSON.stringify(valid));
  const places = locations(base);
  const marked = set(base, places[at % places.length]!, MARK);
  const [left, right] = JSON.stringify(marked).split(JSON.stringify(MARK)) as [string, string];
  return left + raw + right;
}

/** `valid` (an object, else `{}`) as JSON text with one more member, `key`, whose value is `raw`. */
function spliceMember(valid: unknown, key: string, raw: string): string {
  const base: JsonObject = isObject(valid) ? JSON.parse(JSON.stringify(valid)) : {};
  put(base, key, MARK);
  const [left, right] = JSON.stringify(base).split(JSON.stringify(MARK)) as [string, string];
  return left + raw + right;
}

/** Byte sequences that are not UTF-8: stray continuation, overlong NUL, encoded surrogate, 0xFF. */
const invalidUtf8 = fc.constantFrom(
  Uint8Array.of(0x80),
  Uint8Array.of(0xc0, 0x80),
  Uint8Array.of(0xed, 0xa0, 0x80),
  Uint8Array.of(0xff, 0xfe),
  Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
  Uint8Array.of(0xe2, 0x82),
);

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;;;',
  'application/json, text/plain',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/problem+json',
  'application/merge-patch+json',
  'application/octet-stream',
  '*/*',
  'application/jsonx',
  '',
];

const rawText: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: codeUnit, maxLength: 80 }),
  fc.uint8Array({ maxLength: 200 }),
  fc.constantFrom('', ' ', '\n', 'null', '[]', '""', '0', 'true', '{}', '{"', 'a=1&b=2', '\ufeff{}'),
);

// --- bodies -------------------------------------------------------------------------------------

/**
 * Bodies for a route whose valid bodies `valid` makes (`undefined`: the route takes none): valid
 * ones, mutated ones, spliced raw text, arbitrary JSON, bytes that are not UTF-8, text that is not
 * JSON, valid JSON under the wrong content type, and empty bodies.
 */
export function bodies(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((v) => jsonBody('valid', v)) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([v, ms]) => jsonBody('mutated', mutate(v, ms))),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, at, rawFragment).map(([v, i, raw]) => ({
        kind: 'spliced raw text',
        contentType: 'application/json',
        payload: spliceText(v, i, raw),
      })),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => jsonBody('arbitrary JSON', v)) },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, at, invalidUtf8).map(([v, i, bytes]) => {
        const [left, right] = spliceText(v, i, MARK).split(MARK) as [string, string];
        const enc = new TextEncoder();
        return {
          kind: 'invalid UTF-8 in a string',
          contentType: 'application/json',
          payload: Uint8Array.from([...enc.encode(`${left}"`), ...bytes, ...enc.encode(`"${right}`)]),
        };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(rawText, fc.constantFrom('application/json', ...CONTENT_TYPES))
        .map(([payload, contentType]) => ({ kind: 'raw text', contentType, payload })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.constantFrom(...CONTENT_TYPES)).map(([v, contentType]) => ({
        kind: 'valid JSON, other content type',
        contentType,
        payload: JSON.stringify(v ?? {}),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>(
        { kind: 'empty JSON body', contentType: 'application/json', payload: '' },
        { kind: 'no body' },
        { kind: 'no content type', payload: new TextEncoder().encode('{}') },
      ),
    },
  );
}

/**
 * The extremes every route meets once, whatever the seed: nesting 50,000 levels deep (alone and
 * inside a valid body), strings just under and over the body limit, an array of thousands,
 * prototype keys, NUL, lone surrogates, bidi overrides, bytes that are not UTF-8, empty bodies.
 */
export function extremeBodies(valid: unknown): Body[] {
  const json = (kind: string, payload: string): Body => ({ kind, contentType: 'application/json', payload });
  const places = locations(valid ?? {}).length;
  const leaf = Math.max(0, places - 1); // the last place in document order: deep inside, often a string
  const mutated = (kind: string, ...ms: Mutation[]) => jsonBody(kind, mutate(valid, ms));
  return [
    json('50,000 nested arrays', deepText(50_000, 'array')),
    json('50,000 nested objects', deepText(50_000, 'object')),
    json('50,000 nested levels inside a valid body', spliceText(valid, leaf, deepText(50_000, 'mixed'))),
    json('an unknown member nested 50,000 levels', spliceMember(valid, 'x', deepText(50_000, 'object'))),
    mutated('a string just under the limit', {
      op: 'huge-string',
      at: leaf,
      length: BODY_LIMIT - 2_048 - JSON.stringify(valid ?? {}).length,
      unit: 'x',
    }),
    mutated('a string over the limit', { op: 'huge-string', at: leaf, length: 200_000, unit: 'é' }),
    mutated('thousands of copies in an array', {
      op: 'huge-array',
      at: leaf,
      length: 20_000,
      element: 'copy',
    }),
    mutated('20,000 numbers as the body', { op: 'huge-array', at: 0, length: 20_000, element: 'number' }),
    mutated('a __proto__ member', { op: 'prototype', at: 0, path: 'proto' }),
    mutated('a constructor.prototype member', { op: 'prototype', at: leaf, path: 'constructor' }),
    mutated('NUL in a string', { op: 'replace', at: leaf, value: 'a\u0000b' }),
    mutated('a lone surrogate', { op: 'replace', at: leaf, value: '\ud800x\udfff' }),
    mutated('a bidi override', { op: 'replace', at: leaf, value: 'Evil\u202eCorp' }),
    json('NUL in a member name', spliceMember(valid, 'x', '{"\\u0000":"\\u0000"}')),
    {
      kind: 'invalid UTF-8',
      contentType: 'application/json',
      payload: Uint8Array.of(0x7b, 0x22, 0xc0, 0x80, 0x22, 0x3a, 0xff, 0x7d),
    },
    json('empty JSON body', ''),
    { kind: 'no body' },
    { kind: 'valid JSON as text/plain', contentType: 'text/plain', payload: JSON.stringify(valid ?? {}) },
  ];
}

// --- values from a schema -------------------------------------------------------------------------

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI schemas are read as plain JSON
type Schema = Record<string, any>;

export interface SchemaHints {
  /** The OpenAPI document, for `$ref`s. */
  doc: Schema;
  /** Values for members of these names, wherever they appear (a real transactionRef, say). */
  byName: Record<string, fc.Arbitrary<unknown>>;
  /** Values for named components (`#/components/schemas/Pii`). */
  byRef: Record<string, fc.Arbitrary<unknown>>;
  /** Values for `format: uuid` strings no name hint covers. */
  uuid: fc.Arbitrary<string>;
}

/**
 * Values that a JSON schema (as the OpenAPI document shows it) accepts, most of the time: the
 * schema says types, lengths, enums and patterns; the hints say what only the hub knows (which
 * ids exist, what a DID or an endpoint looks like).
 */
export function fromSchema(schema: Schema, hints: SchemaHints, name?: string): fc.Arbitrary<unknown> {
  const hinted = name === undefined ? undefined : hints.byName[name];
  if (hinted) return hinted;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref.split('/').pop()!;
    return hints.byRef[ref] ?? fromSchema(hints.doc.components?.schemas?.[ref] ?? {}, hints, name);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives))
    return fc.oneof(...alternatives.map((s: Schema) => fromSchema(s, hints, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema, hints);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}, hints), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fromSchema(s, hints, k)]));
      const min = schema.minProperties ?? 0;
      return fc
        .record(model, { requiredKeys: schema.required ?? [] })
        .filter((o) => Object.keys(o).length >= min);
    }
    default:
      return fc.constant({});
  }
}

function stringFor(schema: Schema, hints: SchemaHints): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 60, 60);
  const fits = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  if (schema.format === 'uuid') return hints.uuid;
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (schema.format === 'email') return fc.emailAddress();
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern), { size: 'small' }).filter(fits);
  }
  return fc.string({ minLength: Math.min(min, max), maxLength: max });
}

/** A short description of a body for failure messages: its kind, content type and first bytes. */
export function describeBody(body: Body): string {
  const payload = body.payload;
  const text =
    payload === undefined
      ? '(none)'
      : typeof payload === 'string'
        ? payload
        : Buffer.from(payload).toString('latin1');
  const shown =
    text.length > 300
      ? `${JSON.stringify(text.slice(0, 300))}… (${text.length} chars)`
      : JSON.stringify(text);
  return `${body.kind}; content-type ${JSON.stringify(body.contentType ?? null)}; body ${shown}`;
}
