/**
 * Claim links and join applications (SPEC §12). The claim and credentials endpoints are public
 * (no key; the link's token is the credential), rate-limited per client address, and an unknown
 * token counts as a failed authentication of that address. Attaching needs the member's own key;
 * reviewing applications, an operator's.
 */
import type { FastifyRequest } from 'fastify';
import { actorOf, orgOf } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { optionalBody } from '../http/problem.js';
import { type HubApp, problems } from '../http/types.js';
import {
  Announcement,
  Application,
  ApplicationAccepted,
  ApplicationList,
  ApplicationParams,
  ApplicationQuery,
  ApplicationRequest,
  AttachResult,
  Credentials,
  EmptyBody,
  RejectRequest,
  TokenParams,
} from './schemas.js';
import type { ClaimService } from './service.js';

/** Counts a failed use of a link by an address (see Authenticator.failed). */
type Failed = (request: FastifyRequest) => AppError | undefined;

export function claimRoutes(app: HubApp, claims: ClaimService, failed: Failed) {
  const tags = ['claims'];
  const publicRoute = { public: true };
  /** A 404 for a link also counts against the caller's address. */
  const counted = async <T>(request: FastifyRequest, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw failed(request) ?? err;
      throw err;
    }
  };

  app.get(
    '/v1/claims/:token',
    {
      config: publicRoute,
      schema: {
        tags,
        security: [],
        summary:
          'What a NOTIFY claim link announces, and the state of the latest application through it (no key; never personal data)',
        description:
          'The first load is recorded as the claim’s `opened` step (shown to the originator); later loads write nothing. ' +
          '`application` gives the latest application’s state, dates and the operator’s reason, never what the applicant gave.',
        params: TokenParams,
        response: { 200: Announcement, ...problems(400, 404) },
      },
    },
    (request) => counted(request, () => claims.view(request.params.token)),
  );

  app.post(
    '/v1/claims/:token/application',
    {
      config: publicRoute,
      schema: {
        tags,
        security: [],
        summary: 'Apply to join the hub through a claim link (no key); the operator reviews it',
        description:
          'One at a time: while an application through the link is pending, or after one was approved, 409; after a rejection the link takes a new one. ' +
          'The contact gets an acknowledgement by e-mail. The originator chose the address the link was sent to: the review shows it as such. ' +
          'On approval the organization is created, verified, that address gets a single-use link to its credentials ' +
          '(the contact, if another, a notice without it), and the transaction becomes its. A NOTIFY that named a ' +
          'directory member cannot be applied through (409; the member attaches it).',
        params: TokenParams,
        body: ApplicationRequest,
        response: { 201: ApplicationAccepted, ...problems(400, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const accepted = await counted(request, () => claims.apply(request.params.token, request.body));
      reply.code(201);
      return accepted;
    },
  );

  app.post(
    '/v1/claims/:token/attach',
    {
      schema: {
        tags,
        summary: 'A member claims the NOTIFY transaction of the link with its own key',
        description:
          'Uses the link up (409 while an application through it is pending or approved). The transaction then follows MAIN: `received` goes to the member.',
        params: TokenParams,
        response: { 200: AttachResult, ...problems(400, 404, 409) },
      },
    },
    (request) =>
      counted(request, () => claims.attach(request.params.token, orgOf(request), actorOf(request))),
  );

  app.post(
    '/v1/credentials/:token',
    {
      config: publicRoute,
      attachValidation: true,
      schema: {
        tags,
        security: [],
        summary: 'Show an approved applicant its API key and webhook secret, once (no key)',
        params: TokenParams,
        body: EmptyBody,
        response: { 200: Credentials, ...problems(400, 404, 415) },
      },
    },
    (request) => {
      optionalBody(request);
      return counted(request, () => claims.pickup(request.params.token));
    },
  );
}

export function adminClaimRoutes(app: HubApp, claims: ClaimService) {
  const tags = ['operator'];

  app.get(
    '/v1/admin/applications',
    {
      schema: {
        tags,
        summary: 'Applications to join, newest first, with the count of those waiting',
        querystring: ApplicationQuery,
        response: { 200: ApplicationList, ...problems(400) },
      },
    },
    (request) => claims.applications(request.query.status),
  );

  app.post(
    '/v1/admin/applications/:id/approve',
    {
      schema: {
        tags,
        summary:
          'Approve an application: creates the organization (verified) and e-mails its credentials link',
        params: ApplicationParams,
        response: { 200: Application, ...problems(400, 404, 409) },
      },
    },
    (request) => claims.approve(request.params.id, actorOf(request)),
  );

  app.post(
    '/v1/admin/applications/:id/reject',
    {
      schema: {
        tags,
        summary:
          'Reject an application; the reason is e-mailed to the applicant, and the claim link takes a new application',
        params: ApplicationParams,
        body: RejectRequest,
        response: { 200: Application, ...problems(400, 404, 409, 415) },
      },
    },
    (request) => claims.reject(request.params.id, request.body.reason, actorOf(request)),
  );
}
