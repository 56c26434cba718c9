// The IVMS101 normaliser (SPEC §18): every dialect a network sends becomes the one canonical form
// the validator checks, the hub stores, and the versions are written from.
// Invariants:
// - Pure: the input is never modified. The canonical message is a new tree, or the input itself
//   when it is already canonical (the common case: one read-only walk, no copy, no paths).
// - It refuses nothing of substance: it only moves values to their canonical place. Keys it cannot
//   place are `unknown field` problems; two spellings of one element with different values are a
//   problem naming both paths. Everything else is left to the validator.
// - Every canonical path it makes that differs from the caller's is recorded, so the validator's
//   problems can point at what the caller sent (`callerPath`).
// - Absent is absent: `null`, `""`, `[]` and an object whose members are all absent are dropped.
// - Messages never contain submitted values (they are personal data).
//
// Where elements go is read from the validator's JSON schema of the canonical form (PII_SCHEMA),
// so the canonical names are written down once; other names come from dialects.ts.

import { escapePointerToken, type FieldProblem, pointer } from '../text/json-pointer.js';
import { HINTS, hintFor, isObject, type JsonSchema } from './check.js';
import { codeOf, ELEMENT_ALIASES, fold, MESSAGE_WRAPPERS } from './dialects.js';
import { PII_SCHEMA } from './validate.js';

export type Ivms101Version = '2020' | '2023';

export interface Normalised {
  /** The message in canonical form; what the caller sent when it is not an object. */
  message: unknown;
  /** The IVMS101 version the caller wrote in. */
  version: Ivms101Version;
  /** Unknown keys and conflicting spellings, at the caller's paths. */
  problems: FieldProblem[];
  /** The caller's path for a canonical path (pointer of the same element as sent). */
  callerPath(canonical: string): string;
}

interface Member {
  key: string;
  token: string;
  node: Node;
  /** Reached through a name only IVMS101.2023 uses. */
  only2023: boolean;
}

type Node =
  | {
      kind: 'object';
      /** By every spelling, folded (dialects.ts). */
      members: ReadonlyMap<string, Member>;
      /** By the canonical name, as written: the common case, looked up without folding. */
      exact: ReadonlyMap<string, Member>;
      hints: Readonly<Record<string, string>> | undefined;
      /** Set for an entity with one member named like itself (`originatingVASP`, `transferPath`):
       * the member may be sent bare, without the wrapper. */
      wrapper: Member | undefined;
    }
  | { kind: 'list'; item: Node }
  | { kind: 'code'; upper: boolean }
  | { kind: 'integer' }
  | { kind: 'leaf' };

const ALIASES = new Map(ELEMENT_ALIASES.map((a) => [a.canonical, a]));

function compile(schema: JsonSchema, name?: string): Node {
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const members = new Map<string, Member>();
    const exact = new Map<string, Member>();
    const add = (spelling: string, member: Member) => {
      if (!members.has(fold(spelling))) members.set(fold(spelling), member);
    };
    for (const [key, property] of Object.entries(properties)) {
      const member: Member = {
        key,
        token: escapePointerToken(key),
        node: compile(property, key),
        only2023: false,
      };
      exact.set(key, member);
      const alias = ALIASES.get(key);
      const spellings = [key, ...(alias?.also ?? [])];
      // Every spelling as such first, so that a plural never shadows a name of its own.
      for (const spelling of spellings) {
        add(spelling, spelling === key || !alias?.only2023 ? member : { ...member, only2023: true });
      }
      if (member.node.kind === 'list') {
        for (const spelling of spellings) {
          add(`${spelling}s`, member);
          if (fold(spelling).endsWith('s')) add(`${spelling}es`, member);
        }
      }
    }
    const only = Object.keys(properties);
    return {
      kind: 'object',
      members,
      exact,
      hints: (schema as { [HINTS]?: Record<string, string> })[HINTS],
      wrapper:
        name !== undefined && only.length === 1 && only[0] === name ? members.get(fold(name)) : undefined,
    };
  }
  if (schema.type === 'array') return { kind: 'list', item: compile(schema.items as JsonSchema) };
  if (schema.type === 'integer') return { kind: 'integer' };
  if (schema.type === 'string' && Array.isArray(schema.enum)) {
    return { kind: 'code', upper: schema.enum.some((v) => /[A-Z]/.test(String(v))) };
  }
  // Country codes and registration authorities: codes written in capitals.
  if (schema.type === 'string' && typeof schema.pattern === 'string') return { kind: 'code', upper: true };
  return { kind: 'leaf' };
}

const ROOT = compile(PII_SCHEMA);

interface Context {
  problems: FieldProblem[];
  paths: Map<string, string>;
  only2023: boolean;
}

/** Normalises an IVMS101 message sent at `basePath` (an escaped JSON pointer). */
export function normalise(input: unknown, basePath = '/pii'): Normalised {
  if (isObject(input) && canonical(input, ROOT)) {
    return {
      message: input,
      version: is2023(input) ? '2023' : '2020',
      problems: [],
      callerPath: (path) => path,
    };
  }
  const ctx: Context = { problems: [], paths: new Map(), only2023: false };
  let message: unknown = input;
  if (isObject(input)) {
    const wrapper = Object.keys(input).find((k) => MESSAGE_WRAPPERS.includes(fold(k)));
    if (wrapper !== undefined && isObject(input[wrapper])) {
      for (const key of Object.keys(input)) {
        if (key !== wrapper) ctx.problems.push({ path: pointer(basePath, key), message: 'unknown field' });
      }
      message = value(input[wrapper], ROOT, pointer(basePath, wrapper), basePath, ctx) ?? {};
    } else {
      message = value(input, ROOT, basePath, basePath, ctx) ?? {};
    }
  }
  const paths = ctx.paths;
  return {
    message,
    version: ctx.only2023 || is2023(message) ? '2023' : '2020',
    problems: ctx.problems,
    callerPath: (canonical) => callerPath(paths, canonical),
  };
}

function callerPath(paths: ReadonlyMap<string, string>, canonical: string): string {
  for (let end = canonical.length; end > 0; end = canonical.lastIndexOf('/', end - 1)) {
    const sent = paths.get(canonical.slice(0, end));
    if (sent !== undefined) return sent + canonical.slice(end);
  }
  return canonical;
}

/**
 * Whether `value` would come out of `value()` unchanged: every key its canonical name, nothing
 * absent to drop, no bare wrapper, no single value for a list, every code already in its form.
 */
function canonical(v: unknown, node: Node): boolean {
  if (v === null || v === undefined || v === '') return false;
  switch (node.kind) {
    case 'object': {
      if (!isObject(v)) return node.wrapper === undefined;
      if (node.wrapper !== undefined && !Object.hasOwn(v, node.wrapper.key)) return false;
      let any = false;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        const member = node.exact.get(key);
        if (member === undefined || !canonical(v[key], member.node)) return false;
        any = true;
      }
      return any;
    }
    case 'list': {
      if (!Array.isArray(v) || v.length === 0) return false;
      for (const item of v) if (!canonical(item, node.item)) return false;
      return true;
    }
    case 'code':
      return typeof v !== 'string' || v === (node.upper ? codeOf(v).toUpperCase() : codeOf(v).toLowerCase());
    case 'integer':
      return typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v);
    case 'leaf':
      return true;
  }
}

/** The normalised value, or undefined when it is absent. */
function value(v: unknown, node: Node, sent: string, canonical: string, ctx: Context): unknown {
  if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) return undefined;
  if (sent !== canonical) ctx.paths.set(canonical, sent);
  switch (node.kind) {
    case 'object': {
      const wrapper = node.wrapper;
      if (wrapper !== undefined && !(isObject(v) && wraps(v, node, wrapper))) {
        // Sent bare: the value is the wrapped member itself.
        const inner = value(v, wrapper.node, sent, `${canonical}/${wrapper.token}`, ctx);
        return inner === undefined ? undefined : { [wrapper.key]: inner };
      }
      return isObject(v) ? object(v, node, sent, canonical, ctx) : v;
    }
    case 'list': {
      const items = Array.isArray(v) ? v : [v];
      const out: unknown[] = [];
      for (let i = 0; i < items.length; i++) {
        // One string for both paths while they agree (an array with nothing dropped so far).
        const listed = Array.isArray(v);
        const at = listed ? `${sent}/${i}` : sent;
        const to = listed && sent === canonical && out.length === i ? at : `${canonical}/${out.length}`;
        const item = value(items[i], node.item, at, to, ctx);
        if (item !== undefined) out.push(item);
      }
      return out.length === 0 ? undefined : out;
    }
    case 'code':
      if (typeof v !== 'string') return v;
      return node.upper ? codeOf(v).toUpperCase() : codeOf(v).toLowerCase();
    case 'integer':
      return typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : v;
    case 'leaf':
      return v;
  }
}

function object(
  v: Record<string, unknown>,
  node: Extract<Node, { kind: 'object' }>,
  sent: string,
  canonical: string,
  ctx: Context,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let placed = false;
  // An object with a key that has no place is kept even when nothing else is left of it, so the
  // validator still says what the object lacks, beside the unknown key.
  let unplaced = false;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    const known = node.exact.get(key);
    const member = known ?? node.members.get(fold(key));
    const at = member !== undefined && key === member.key ? `${sent}/${member.token}` : pointer(sent, key);
    if (member === undefined) {
      ctx.problems.push({ path: at, message: hintFor(node.hints, key) });
      unplaced = true;
      continue;
    }
    const first = !Object.hasOwn(out, member.key);
    // A second spelling's paths must not replace the first's: it is compared, never kept.
    const into = first ? ctx : { ...ctx, paths: new Map<string, string>() };
    const to = sent === canonical && known !== undefined ? at : `${canonical}/${member.token}`;
    const result = value(v[key], member.node, at, to, into);
    if (into !== ctx) ctx.only2023 ||= into.only2023;
    if (result === undefined) continue;
    if (member.only2023) ctx.only2023 = true;
    if (first) {
      out[member.key] = result;
      placed = true;
    } else if (!sameJson(out[member.key], result)) {
      ctx.problems.push({
        path: at,
        message: `conflicts with ${pointer(sent, firstSpelling(v, node, member))}: two spellings of one element with different values`,
      });
    }
  }
  return placed || unplaced ? out : undefined;
}

/** The key of `v` whose value was kept for `member`: the first spelling of it that is not absent. */
function firstSpelling(
  v: Record<string, unknown>,
  node: Extract<Node, { kind: 'object' }>,
  member: Member,
): string {
  for (const key in v) {
    if (!Object.hasOwn(v, key) || node.members.get(fold(key))?.key !== member.key) continue;
    const thrownAway: Context = { problems: [], paths: new Map(), only2023: false };
    if (value(v[key], member.node, '', '', thrownAway) !== undefined) return key;
  }
  return member.key; // unreachable: a conflict has a first spelling
}

/** Whether `v` has the wrapper's member (by any spelling), or is the member sent bare. */
function wraps(
  v: Record<string, unknown>,
  node: Extract<Node, { kind: 'object' }>,
  wrapper: Member,
): boolean {
  if (Object.hasOwn(v, wrapper.key)) return true;
  for (const k in v) if (node.members.get(fold(k)) === wrapper) return true;
  return false;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]))
  );
}

/** 2023 by its metadata, or by account numbers on a person (IVMS101.2023's place for them). */
function is2023(message: unknown): boolean {
  if (!isObject(message)) return false;
  const meta = message.payloadMetadata;
  if (isObject(meta) && meta.payloadVersion === '101.2023') return true;
  return (['originator', 'beneficiary'] as const).some((side) => {
    const s = message[side];
    const persons = isObject(s)
      ? s[side === 'originator' ? 'originatorPersons' : 'beneficiaryPersons']
      : undefined;
    return Array.isArray(persons) && persons.some((p) => isObject(p) && p.accountNumber !== undefined);
  });
}
