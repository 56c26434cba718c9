// Reading an IVMS101 message (SPEC §18): normalise whatever dialect was sent, validate the
// canonical form, and point every problem at the caller's own path. The one entry point for
// initiate, validate, the check endpoint and inbound TRP inquiries.

import type { FieldProblem } from '../text/json-pointer.js';
import { isObject } from './check.js';
import { type Ivms101Version, normalise } from './normalise.js';
import { validateCanonical } from './validate.js';

export { type Ivms101Version, normalise } from './normalise.js';
export { type Ivms101Style, render } from './versions.js';

export type Ivms101Message = Record<string, unknown>;

export interface ReadMessage {
  /** The canonical message; meaningful only when `problems` is empty. */
  message: Ivms101Message;
  /** The version the caller wrote in. */
  version: Ivms101Version;
  /** Every problem, at the caller's paths; empty when the message is valid. */
  problems: FieldProblem[];
}

/** Reads the IVMS101 message `input`, sent at `basePath` (an escaped JSON pointer). */
export function readIvms101(input: unknown, basePath = '/pii'): ReadMessage {
  const n = normalise(input, basePath);
  const problems = [...n.problems];
  for (const p of validateCanonical(n.message, basePath)) {
    problems.push({ path: n.callerPath(p.path), message: p.message });
  }
  return {
    message: isObject(n.message) ? n.message : {},
    version: n.version,
    problems,
  };
}

/** Every problem with the IVMS101 message `input`, at the caller's paths. */
export function validatePii(input: unknown, basePath = '/pii'): FieldProblem[] {
  return readIvms101(input, basePath).problems;
}

/** What the directory knows of a VASP, to fill in the message's VASP when the sender left it out. */
export interface VaspFacts {
  name: string;
  lei?: string | null;
  jurisdiction?: string | null;
}

/**
 * The message with `originatingVASP` and `beneficiaryVASP` filled in from the directory where the
 * sender left them out: a legal person named `name` (LEGL), its LEI as a LEIX identification and
 * its jurisdiction as country of registration when the directory has them.
 */
export function withVasps(
  message: Ivms101Message,
  vasps: { originating?: VaspFacts | undefined; beneficiary?: VaspFacts | undefined },
): Ivms101Message {
  const out = { ...message };
  if (out.originatingVASP === undefined && vasps.originating) {
    out.originatingVASP = { originatingVASP: vaspPerson(vasps.originating) };
  }
  if (out.beneficiaryVASP === undefined && vasps.beneficiary) {
    out.beneficiaryVASP = { beneficiaryVASP: vaspPerson(vasps.beneficiary) };
  }
  return out;
}

function vaspPerson(v: VaspFacts): Ivms101Message {
  return {
    legalPerson: {
      // IVMS101 caps a legal name at 100 characters (directory names may be longer).
      name: [
        {
          nameIdentifier: [
            { legalPersonName: [...v.name].slice(0, 100).join(''), legalPersonNameIdentifierType: 'LEGL' },
          ],
        },
      ],
      ...(v.lei
        ? { nationalIdentification: { nationalIdentifier: v.lei, nationalIdentificationType: 'LEIX' } }
        : {}),
      ...(v.jurisdiction ? { countryOfRegistration: v.jurisdiction } : {}),
    },
  };
}
