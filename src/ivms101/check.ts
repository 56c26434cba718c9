// A small table-driven checker for JSON trees, used by the IVMS101 validator.
// Every check carries the JSON schema of what it accepts in its canonical spelling, so one
// description of `pii` serves validation, the OpenAPI document and the normaliser (normalise.ts),
// which reads the same schema to know where each element of a dialect belongs.
// Invariants:
// - A check never throws and never stops early: every problem in the tree is collected, so a
//   participant can fix a whole message in one round trip.
// - Messages are fixed texts. They may name fields, limits and allowed codes, but never the
//   submitted value, because the tree is personal data (SPEC §9).
// - Keys are looked up with `Object.hasOwn`, so keys such as `__proto__` or `constructor` are plain
//   unknown fields, never inherited properties.

import { getAlpha2Codes } from 'i18n-iso-countries/index.js';
import { escapePointerToken, type FieldProblem, pointer } from '../text/json-pointer.js';

/**
 * Checks one value and appends what is wrong with it to `out`. The value is member `token` (an
 * escaped reference token) of the value at pointer `parent`; its own pointer, `at(parent, token)`,
 * is made only when a problem names it or a child needs it: most values are valid, and joining
 * every field's pointer up front allocated more than the rest of a request's validation.
 */
export interface Check {
  (value: unknown, parent: string, token: string, out: FieldProblem[]): void;
  /** What the check accepts, as JSON schema (documentation only: the check is the validator). */
  readonly schema: JsonSchema;
}

export type JsonSchema = Readonly<Record<string, unknown>>;

type Validate = (value: unknown, parent: string, token: string, out: FieldProblem[]) => void;

/** A check made of a validating function and the schema that documents it. */
export function check(validate: Validate, schema: JsonSchema): Check {
  return Object.assign(validate, { schema });
}

/** The JSON pointer of member `token` of the value at `parent`. */
export function at(parent: string, token: string): string {
  return `${parent}/${token}`;
}

export interface Field {
  check: Check;
  required?: boolean;
  /** What the field means, for the documentation. */
  description?: string;
}

export type Shape = Readonly<Record<string, Field>>;

/** An object that passed the key checks: its values by canonical name, for cross-field constraints. */
export interface Fields {
  readonly path: string;
  /** The value under `name`; `undefined` when absent. */
  value(name: string): unknown;
  /** Pointer to `name`. */
  at(name: string): string;
}

export interface ObjectOptions {
  /** Cross-field constraints, run only when the value is an object. */
  after?: (fields: Fields, out: FieldProblem[]) => void;
  /** Clearer messages for keys that senders often confuse with a valid one. */
  hints?: Readonly<Record<string, string>>;
  /** What the object is, for the documentation. */
  description?: string;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Present means given and not null; an empty array counts as absent for "one of" rules. */
export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

function has(obj: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(obj, key) && obj[key] !== undefined;
}

/** What checkObject needs of a shape, worked out once per shape: it runs on every request. */
interface CompiledShape {
  known: ReadonlySet<string>;
  fields: { name: string; token: string; field: Field }[];
}

const compiled = new WeakMap<Shape, CompiledShape>();

function compile(shape: Shape): CompiledShape {
  let c = compiled.get(shape);
  if (c === undefined) {
    const entries = Object.entries(shape);
    c = {
      known: new Set(entries.map(([name]) => name)),
      fields: entries.map(([name, field]) => ({ name, token: escapePointerToken(name), field })),
    };
    compiled.set(shape, c);
  }
  return c;
}

export function checkObject(
  value: unknown,
  path: string,
  shape: Shape,
  out: FieldProblem[],
  options: ObjectOptions = {},
): void {
  if (!isObject(value)) {
    out.push({ path, message: 'must be an object' });
    return;
  }
  const { known, fields } = compile(shape);
  // for…in rather than Object.keys: no array per object (a JSON object has no inherited keys,
  // and the hasOwn test keeps it so for any other).
  for (const key in value) {
    if (!Object.hasOwn(value, key) || known.has(key)) continue;
    out.push({ path: pointer(path, key), message: hintFor(options.hints, key) });
  }
  for (const { name, token, field } of fields) {
    if (has(value, name)) field.check(value[name], path, token, out);
    else if (field.required) out.push({ path: at(path, token), message: 'is required' });
  }
  options.after?.(new CheckedFields(value, path), out);
}

/** The message for a key that has no place in an object: its hint, else `unknown field`. */
export function hintFor(hints: Readonly<Record<string, string>> | undefined, key: string): string {
  return hints !== undefined && Object.hasOwn(hints, key) ? (hints[key] as string) : 'unknown field';
}

/** The Fields an `after` rule sees. */
class CheckedFields implements Fields {
  constructor(
    private readonly object: Record<string, unknown>,
    readonly path: string,
  ) {}

  value(name: string): unknown {
    return has(this.object, name) ? this.object[name] : undefined;
  }

  at(name: string): string {
    return pointer(this.path, name);
  }
}

/**
 * An object schema's hints, for the normaliser, which reports keys it cannot place with the same
 * words as the validator. A symbol key: copies of the schema keep it, JSON and the OpenAPI
 * document never show it.
 */
export const HINTS: unique symbol = Symbol('ivms101.hints');

export function object(shape: Shape, options: ObjectOptions = {}): Check {
  const schema = {
    ...objectSchema(shape, options.description),
    ...(options.hints === undefined ? {} : { [HINTS]: options.hints }),
  };
  return check((value, parent, token, out) => {
    checkObject(value, at(parent, token), shape, out, options);
  }, schema);
}

/** The schema of an object of `shape`, in the canonical spelling. */
export function objectSchema(shape: Shape, description?: string): JsonSchema {
  const entries = Object.entries(shape);
  const required = entries.filter(([, f]) => f.required).map(([name]) => name);
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    properties: Object.fromEntries(entries.map(([name, f]) => [name, fieldSchema(f)])),
    ...(required.length === 0 ? {} : { required }),
    additionalProperties: false,
  };
}

function fieldSchema(f: Field): JsonSchema {
  return f.description === undefined ? f.check.schema : { ...f.check.schema, description: f.description };
}

export function list(item: Check, bounds: { min?: number; max?: number } = {}): Check {
  return check(
    (value, parent, token, out) => {
      const path = at(parent, token);
      if (!Array.isArray(value)) {
        out.push({ path, message: 'must be an array' });
        return;
      }
      if (bounds.min !== undefined && value.length < bounds.min) {
        out.push({
          path,
          message: bounds.min === 1 ? 'must not be empty' : `must contain at least ${bounds.min} items`,
        });
      }
      if (bounds.max !== undefined && value.length > bounds.max) {
        out.push({ path, message: `must contain at most ${bounds.max} items` });
      }
      for (let index = 0; index < value.length; index++) {
        item(value[index], path, String(index), out); // an index needs no escaping
      }
    },
    {
      type: 'array',
      items: item.schema,
      ...(bounds.min === undefined ? {} : { minItems: bounds.min }),
      ...(bounds.max === undefined ? {} : { maxItems: bounds.max }),
    },
  );
}

/** IVMS101 MaxNText: at least one character that is not white space, at most `max` characters. */
export function text(max: number): Check {
  return check(
    (value, parent, token, out) => {
      if (typeof value !== 'string') {
        out.push({ path: at(parent, token), message: 'must be a string' });
        return;
      }
      if (value.trim() === '') out.push({ path: at(parent, token), message: 'must not be empty' });
      // ISO 20022 counts characters, so a name in a non-Latin script gets the same room.
      else if (value.length > max && [...value].length > max) {
        out.push({ path: at(parent, token), message: `must be at most ${max} characters` });
      }
    },
    { type: 'string', minLength: 1, maxLength: max },
  );
}

export function code(values: readonly string[]): Check {
  const allowed = new Set(values);
  const message = `must be one of ${values.join(', ')}`;
  return check(
    (value, parent, token, out) => {
      if (typeof value !== 'string') out.push({ path: at(parent, token), message: 'must be a string' });
      else if (!allowed.has(value)) out.push({ path: at(parent, token), message });
    },
    { type: 'string', enum: [...values] },
  );
}

// Loaded from the package's code table only, not its localized names, so importing it stays cheap.
// `XX` is IVMS101's code for "not known / not applicable" (SPEC §6).
const COUNTRIES = new Set([...Object.keys(getAlpha2Codes()), 'XX']);

export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value) && COUNTRIES.has(value);
}

export const country: Check = check(
  (value, parent, token, out) => {
    if (typeof value !== 'string') out.push({ path: at(parent, token), message: 'must be a string' });
    else if (!isCountryCode(value)) {
      out.push({
        path: at(parent, token),
        message: 'must be an ISO 3166-1 alpha-2 country code in upper case, or XX',
      });
    }
  },
  {
    type: 'string',
    pattern: '^[A-Z]{2}$',
    description: 'ISO 3166-1 alpha-2 country code, or XX if not known.',
  },
);
