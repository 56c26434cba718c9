/** Transaction routes: parse, authorize by key, call the service, shape the answer. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendAttachment } from '../http/attachment.js';
import { auditIdentity, callerOf, mayReadPii, orgOf, userActorOf } from '../http/auth.js';
import { AppError, validationFailed } from '../http/errors.js';
import { fieldProblems } from '../http/problem.js';
import { type HubApp, jsonOrExport, problems } from '../http/types.js';
import type { IdempotencyKey } from '../idempotency/index.js';
import type { Review } from '../reviews/schemas.js';
import type { AssetTable } from './assets.js';
import { CSV_TYPE } from './csv.js';
import type { Attachments } from './initiation.js';
import {
  ApproveRequest,
  ApproveResponse,
  CancelRequest,
  CancelResponse,
  ConfirmRequest,
  ConfirmResponse,
  DeclineRequest,
  DeclineResponse,
  IdempotencyHeaders,
  InitiateRequest,
  InitiateResponse,
  ListQuery,
  PiiQuery,
  PiiResponse,
  RefParams,
  Transaction,
  TransactionList,
  TxHashRequest,
  TxHashResponse,
} from './schemas.js';
import type { TransactionService } from './service.js';
import { validateDecline, validateInitiation } from './validation.js';

const tags = ['transactions'];

export function transactionRoutes(
  app: HubApp,
  transactions: TransactionService,
  assets: AssetTable,
  checks: {
    /** The jurisdictions' rules and the attached wallet proof (SPEC §15); throws 400 or 422. */
    before(orgId: string, body: InitiateRequest): Promise<Attachments>;
    /** The caller's own review of a transaction it may see (src/reviews/). */
    review(request: FastifyRequest, ref: string): Promise<Review>;
  },
) {
  const idempotency = (request: FastifyRequest): IdempotencyKey | undefined => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return undefined;
    return { key, ...transactions.requestFingerprint(request.routeOptions.url ?? request.url, request.body) };
  };

  app.post(
    '/v1/transactions/initiate',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Start a transaction under MAIN, BASIC, NOTIFY or TRP',
        description:
          'Validates the request (protocol table, asset and amount, IVMS101 `pii`), stores it with the ' +
          'personal data encrypted, and queues the `received` webhook (MAIN, BASIC), the NOTIFY e-mail, or the ' +
          'TRP inquiry to the `travelAddress`’s VASP (TRP: no destination; the beneficiary VASP gives it when it approves). ' +
          'Every problem found is listed in the 400 answer.',
        headers: IdempotencyHeaders,
        body: InitiateRequest,
        response: { 200: InitiateResponse, ...problems(400, 409, 415, 422) },
      },
    },
    async (request) => {
      const orgId = orgOf(request);
      const schemaProblems = request.validationError ? fieldProblems(request.validationError) : [];
      const checked = validateInitiation(request.body, assets, schemaProblems);
      if (checked.problems.length > 0) throw validationFailed(checked.problems);
      // The personal data goes on in canonical form (SPEC §18), whatever dialect it came in: the
      // rules read it so, and the hub keeps it so.
      const body = { ...request.body, pii: checked.pii };
      // The jurisdictions' rules and the wallet proof (SPEC §15): 422 RULES_NOT_MET, 400.
      const attached = await checks.before(orgId, body);
      return transactions.initiate(orgId, body, idempotency(request), attached);
    },
  );

  app.post(
    '/v1/transactions/confirm',
    {
      schema: {
        tags,
        summary: 'Confirm a MAIN transaction (originator); queues confirmed-data to the beneficiary',
        headers: IdempotencyHeaders,
        body: ConfirmRequest,
        response: { 200: ConfirmResponse, ...problems(400, 403, 404, 409, 415) },
      },
    },
    (request) =>
      transactions.confirm(orgOf(request), request.body, idempotency(request), userActorOf(request)),
  );

  app.post(
    '/v1/transactions/decline',
    {
      attachValidation: true,
      schema: {
        tags,
        summary:
          'Decline a CONFIRMED transaction, or an inbound TRP one before approving it (beneficiary); the originator is informed',
        headers: IdempotencyHeaders,
        body: DeclineRequest,
        response: { 200: DeclineResponse, ...problems(400, 403, 404, 409, 415) },
      },
    },
    async (request) => {
      const orgId = orgOf(request);
      const schemaProblems = request.validationError ? fieldProblems(request.validationError) : [];
      const all = validateDecline(request.body, schemaProblems);
      if (all.length > 0) throw validationFailed(all);
      return transactions.decline(orgId, request.body, idempotency(request), userActorOf(request));
    },
  );

  app.post(
    '/v1/transactions/cancel',
    {
      schema: {
        tags,
        summary: 'Call a transfer off (originator), before its hash was shared',
        description:
          'From NEW, RECEIVER_NOTIFIED or CONFIRMED while no txHash was shared. Messages not sent yet are ' +
          'withdrawn; `cancelled` goes to a beneficiary that had been told (NOTIFY: a short e-mail, and the ' +
          'claim link stops working). CANCELLED is final.',
        headers: IdempotencyHeaders,
        body: CancelRequest,
        response: { 200: CancelResponse, ...problems(400, 403, 404, 409, 415) },
      },
    },
    (request) =>
      transactions.cancel(orgOf(request), request.body, idempotency(request), userActorOf(request)),
  );

  app.post(
    '/v1/transactions/approve',
    {
      schema: {
        tags,
        summary: 'Approve an inbound TRP transfer with the address to pay (beneficiary)',
        description:
          'TRP only (SPEC §16): from RECEIVER_NOTIFIED to CONFIRMED (from NEW before the hub recorded the delivery ' +
          'of `received`: the answer proves it arrived); the hub sends TRP’s `approved` resolution, ' +
          'with this address, to the sending VASP. To refuse, use decline.',
        headers: IdempotencyHeaders,
        body: ApproveRequest,
        response: { 200: ApproveResponse, ...problems(400, 403, 404, 409, 415) },
      },
    },
    (request) =>
      transactions.approve(orgOf(request), request.body, idempotency(request), userActorOf(request)),
  );

  app.post(
    '/v1/transactions/tx-hash',
    {
      schema: {
        tags,
        summary: 'Share the blockchain hash after broadcast (originator); queues tx-hash to the beneficiary',
        headers: IdempotencyHeaders,
        body: TxHashRequest,
        response: { 200: TxHashResponse, ...problems(400, 403, 404, 409, 415) },
      },
    },
    (request) =>
      transactions.shareTxHash(orgOf(request), request.body, idempotency(request), userActorOf(request)),
  );

  app.get(
    '/v1/transactions',
    {
      schema: {
        tags,
        summary: 'The caller’s transactions, filtered and searched, keyset-paged; or all of them as CSV',
        description:
          'Newest first unless `sort=oldest`, with `total`, the number of matches on all pages. ' +
          '`format=csv` answers `text/csv` (a header row, then every matching transaction, streamed) as an ' +
          'attachment. `customer` and `includePii=true` need the right to read personal data (403 otherwise).',
        querystring: ListQuery,
        response: { 200: jsonOrExport(TransactionList), ...problems(400, 403) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      if ((query.customer !== undefined || query.includePii === 'true') && !mayReadPii(request)) {
        throw new AppError(
          'FORBIDDEN',
          'Searching or exporting customer names needs the right to read personal data.',
        );
      }
      if (query.format !== 'csv') return transactions.list(orgOf(request), query);
      const csv = await transactions.exportCsv(orgOf(request), query, {
        ...auditIdentity(request),
        requestId: request.id,
        clientAddress: request.ip,
      });
      return sendAttachment(reply as FastifyReply, { type: CSV_TYPE, ...csv });
    },
  );

  app.get(
    '/v1/transactions/:transactionRef',
    {
      schema: {
        tags,
        summary: 'One transaction with its history and the caller’s own review (parties only)',
        description:
          'No personal data: `pii` has its own audited read. The review’s note text is shown only to callers ' +
          'allowed to read personal data (keys, analysts, admins); a viewer sees `text: null`.',
        params: RefParams,
        response: { 200: Transaction, ...problems(400, 404) },
      },
    },
    async (request) => {
      const t = await transactions.get(orgOf(request), request.params.transactionRef);
      return { ...t, review: await checks.review(request, t.transactionRef) };
    },
  );

  app.get(
    '/v1/transactions/:transactionRef/pii',
    {
      schema: {
        tags,
        summary:
          'The personal data (originator: always; beneficiary: once CONFIRMED). Every read is audited.',
        description:
          'The whole IVMS101 message, in the caller’s `ivms101Version` (`2020` unless the organization ' +
          'chose `2023`), or in the `version` asked for.',
        params: RefParams,
        querystring: PiiQuery,
        response: { 200: PiiResponse, ...problems(400, 403, 404) },
      },
    },
    (request) => {
      const { organizationId } = callerOf(request);
      return transactions.readPiiAsParty(
        organizationId,
        request.params.transactionRef,
        request.query.version,
        {
          ...auditIdentity(request),
          requestId: request.id,
          clientAddress: request.ip,
        },
      );
    },
  );
}
