/**
 * `POST /v1/ivms101/check` (SPEC §18): how the hub reads a payload, for integration engineers.
 * Nothing is stored, and the payload is never logged (the request logger logs no bodies).
 */
import { type Static, Type } from 'typebox';
import { fitProblems, MAX_ANSWER_BYTES, MAX_PROBLEMS } from '../http/problem.js';
import { type HubApp, problems } from '../http/types.js';
import { type Ivms101Version, readIvms101, render } from './message.js';

const Version = Type.Enum(['2020', '2023']);

export const CheckRequest = Type.Object(
  {
    payload: Type.Unknown({
      description: 'An IVMS101 message (or its `pii`) in any dialect the hub reads (docs/ivms101.md).',
    }),
    version: Type.Optional(
      Type.Enum(['2020', '2023'], {
        description: 'The version to show `normalized` in; the detected one when absent.',
      }),
    ),
  },
  { additionalProperties: false, required: ['payload'] },
);

export const CheckResponse = Type.Object({
  valid: Type.Boolean({ description: 'true when initiate would accept this `pii`.' }),
  detectedVersion: Version,
  normalized: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'The message as the hub keeps it, written in the version asked for: what a member with that ' +
        '`ivms101Version` receives (VASPs the sender leaves out are filled in from the directory at delivery).',
    },
  ),
  errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
    description: `Every problem, at the paths as sent (JSON pointers below /payload); at most ${MAX_PROBLEMS}.`,
  }),
  truncated: Type.Optional(
    Type.Literal(true, { description: 'More problems were found than `errors` lists (SPEC §13).' }),
  ),
});

export function check(body: Static<typeof CheckRequest>): Static<typeof CheckResponse> {
  const read = readIvms101(body.payload, '/payload');
  const version: Ivms101Version = body.version ?? read.version;
  // The problems' share of the answer: the normalised message is the payload's own size at most.
  const { errors, truncated } = fitProblems(read.problems, MAX_ANSWER_BYTES / 2);
  return {
    valid: read.problems.length === 0,
    detectedVersion: read.version,
    normalized: render(read.message, version),
    errors,
    ...(truncated ? { truncated: true as const } : {}),
  };
}

export function ivms101Routes(app: HubApp) {
  app.post(
    '/v1/ivms101/check',
    {
      config: { anyKey: true },
      schema: {
        tags: ['ivms101'],
        summary: 'Read an IVMS101 payload as the hub would: its version, its normalised form, every problem',
        description:
          'Any API key (organization keys of either scope, operator keys). Nothing is stored or logged. ' +
          '200 whether or not the payload is valid; `errors` lists what initiate would refuse.',
        body: CheckRequest,
        response: { 200: CheckResponse, ...problems(400, 413, 415) },
      },
    },
    (request) => check(request.body),
  );
}
