// Writing a canonical IVMS101 message out (SPEC §18): in the version an organization asked for,
// or as TRP peers expect it. Pure; the message is never modified.
//
// - `2020`: the interface document's shape (v1 unchanged): `name` an array of name objects,
//   `nationalIdentificationType`, `postCode`, every account number on the originator/beneficiary.
//   Elements the interface document does not show keep their IVMS101 2020 names (a legal
//   person's `customerNumber`).
// - `2023`: IVMS101.2023: `originatorPerson`/`beneficiaryPerson`, one `name` object per person,
//   `naturalPersonNameIdentifierType` (a required element: an absent type is written as LEGL, as
//   the hub reads it), `nationalIdentifierType`, `postcode`, account numbers on the persons (the
//   originator's/beneficiary's own go to its first person), `payloadMetadata.payloadVersion`.
// - `trp`: IVMS101 2020 with the standard's names, as TRP peers' tooling produces it: `name` as
//   one object and `nationalIdentifierType`.

import { isObject } from './check.js';
import type { Ivms101Version } from './normalise.js';

export type Ivms101Style = Ivms101Version | 'trp';

type Json = Record<string, unknown>;

const SIDES = { originator: 'originatorPersons', beneficiary: 'beneficiaryPersons' } as const;
const PERSONS_2023 = { originator: 'originatorPerson', beneficiary: 'beneficiaryPerson' } as const;

/** The canonical message `message`, written in `style`. */
export function render(message: Json, style: Ivms101Style): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(message)) {
    if (!isObject(value)) continue;
    if (key === 'originator' || key === 'beneficiary') out[key] = side(value, key, style);
    else if (key === 'originatingVASP' || key === 'beneficiaryVASP') {
      out[key] = { [key]: person(value[key] as Json, style) };
    } else if (key === 'transferPath') {
      out[key] = {
        transferPath: (value.transferPath as Json[]).map((step) => ({
          intermediaryVASP: person(step.intermediaryVASP as Json, style),
          sequence: step.sequence,
        })),
      };
    } else if (key === 'payloadMetadata' && value.transliterationMethod !== undefined) {
      out[key] = { transliterationMethod: value.transliterationMethod };
    }
  }
  if (style === '2023') {
    out.payloadMetadata = { ...(out.payloadMetadata as Json | undefined), payloadVersion: '101.2023' };
  }
  return out;
}

function side(value: Json, which: keyof typeof SIDES, style: Ivms101Style): Json {
  const persons = (value[SIDES[which]] as Json[] | undefined) ?? [];
  const own = (value.accountNumber as string[] | undefined) ?? [];
  if (style === '2023') {
    return {
      [PERSONS_2023[which]]: persons.map((p, i) => {
        const accounts = [...(i === 0 ? own : []), ...((p.accountNumber as string[] | undefined) ?? [])];
        return { ...person(p, style), ...(accounts.length === 0 ? {} : { accountNumber: accounts }) };
      }),
    };
  }
  const accounts = [...own, ...persons.flatMap((p) => (p.accountNumber as string[] | undefined) ?? [])];
  return {
    [SIDES[which]]: persons.map((p) => person(p, style)),
    ...(accounts.length === 0 ? {} : { accountNumber: accounts }),
  };
}

/** A person without its account numbers (the side decides where those go). */
function person(p: Json, style: Ivms101Style): Json {
  const out: Json = {};
  if (isObject(p.naturalPerson)) out.naturalPerson = party(p.naturalPerson, 'natural', style);
  if (isObject(p.legalPerson)) out.legalPerson = party(p.legalPerson, 'legal', style);
  return out;
}

function party(p: Json, kind: 'natural' | 'legal', style: Ivms101Style): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(p)) {
    if (key === 'name') out.name = names(value as Json[], kind, style);
    else if (key === 'geographicAddress')
      out.geographicAddress = (value as Json[]).map((a) => address(a, style));
    else if (key === 'nationalIdentification')
      out.nationalIdentification = identification(value as Json, style);
    else if (key === 'customerIdentification' && kind === 'legal' && style !== '2023')
      out.customerNumber = value;
    else out[key] = value;
  }
  return out;
}

const NAME_LISTS = ['nameIdentifier', 'localNameIdentifier', 'phoneticNameIdentifier'] as const;

function names(list: Json[], kind: 'natural' | 'legal', style: Ivms101Style): Json[] | Json {
  if (style === '2020') return list;
  // IVMS101 has one name object per person: the lists of every name object, in order.
  const merged: Json = {};
  for (const field of NAME_LISTS) {
    const ids = list.flatMap((n) => (n[field] as Json[] | undefined) ?? []);
    if (ids.length > 0) merged[field] = style === '2023' ? ids.map((id) => nameId2023(id, kind, field)) : ids;
  }
  return merged;
}

function nameId2023(id: Json, kind: 'natural' | 'legal', field: (typeof NAME_LISTS)[number]): Json {
  if (kind === 'legal')
    return { ...id, legalPersonNameIdentifierType: id.legalPersonNameIdentifierType ?? 'LEGL' };
  const { nameIdentifierType, ...rest } = id;
  // IVMS101.2023 renamed the type of the legal name only; local and phonetic names keep the old name.
  const key = field === 'nameIdentifier' ? 'naturalPersonNameIdentifierType' : 'nameIdentifierType';
  return { ...rest, [key]: nameIdentifierType ?? 'LEGL' };
}

function address(a: Json, style: Ivms101Style): Json {
  if (style !== '2023' || a.postCode === undefined) return a;
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k === 'postCode' ? 'postcode' : k, v]));
}

function identification(id: Json, style: Ivms101Style): Json {
  if (style === '2020') return id;
  return Object.fromEntries(
    Object.entries(id).map(([k, v]) => [
      k === 'nationalIdentificationType' ? 'nationalIdentifierType' : k,
      v,
    ]),
  );
}
