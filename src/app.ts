/**
 * Composition root: from a config, a database and the hub's secrets, build the services and
 * the Fastify app that exposes them. No I/O of its own beyond what the parts do; `serve`
 * (cli) opens the database, calls buildApp, listens and starts the worker.
 */
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { AuditSigner } from './audit/checkpoint.js';
import { auditRoutes } from './audit/routes.js';
import { AuditService } from './audit/service.js';
import { adminClaimRoutes, claimRoutes } from './claims/routes.js';
import { ClaimService } from './claims/service.js';
import { LinkTokens, tokenHash } from './claims/tokens.js';
import { type Config, ConfigError } from './config.js';
import { KeyRing } from './crypto/envelope.js';
import { dashboardRoutes } from './dashboard/routes.js';
import type { Database } from './db/database.js';
import { endpointDownCheckMs, notifyEndpointsDown } from './deliveries/endpoint-down.js';
import { createDeliveries, type Deliveries, type DeliveryHooks } from './deliveries/index.js';
import { Periodic } from './deliveries/periodic.js';
import { webhooksDocument } from './deliveries/webhook-docs.js';
import {
  adminOrganizationHealthRoutes,
  counterpartyDirectoryRoutes,
} from './directory/counterparty-routes.js';
import { adminDirectoryRoutes, directoryRoutes } from './directory/routes.js';
import { DirectoryService } from './directory/service.js';
import { type Authenticator, rateLimitBucket, registerAuth } from './http/auth.js';
import { UUID } from './http/cursor.js';
import { addDocumentedAs } from './http/documented-as.js';
import { serializeError, serializeRequest } from './http/error-log.js';
import { AppError } from './http/errors.js';
import { registerJsonBody } from './http/json-body.js';
import { lazyCompilers } from './http/lazy-compilers.js';
import { createRegistry, registerHttpMetrics } from './http/metrics.js';
import { registerOpenApi } from './http/openapi.js';
import {
  answerClientError,
  answerFrameworkError,
  registerProblemHandlers,
  setCommonHeaders,
} from './http/problem.js';
import { lazyRequestLogger } from './http/request-logger.js';
import { type HubApp, Problem, problems } from './http/types.js';
import { ivms101Routes } from './ivms101/routes.js';
import { PiiSchema } from './ivms101/schema.js';
import { BackgroundRekey } from './keys/background.js';
import { loadHubKey, loadLinkKey } from './keys/link-key.js';
import { rekeyRoutes } from './keys/routes.js';
import { docsRoutes } from './operations/docs.js';
import { adminOperationsRoutes } from './operations/routes.js';
import { operatorRoutes } from './operators/routes.js';
import { OperatorService } from './operators/service.js';
import { secureCookies } from './people/cookies.js';
import { OidcService } from './people/oidc.js';
import { oidcRoutes } from './people/oidc-routes.js';
import { adminPeopleRoutes, peopleRoutes } from './people/routes.js';
import { PeopleService } from './people/service.js';
import { SessionService } from './people/sessions.js';
import { Erasure } from './retention/erasure.js';
import { adminRetentionRoutes } from './retention/routes.js';
import { adminQueueRoutes, reviewCallerOf, reviewRoutes } from './reviews/routes.js';
import { ReviewService } from './reviews/service.js';
import { loadFxRates, NO_RATES } from './rules/fx.js';
import { rulesRoutes } from './rules/routes.js';
import { RulesService } from './rules/service.js';
import { loadRulesTable } from './rules/table.js';
import type { HubSecrets } from './secrets.js';
import { loadAssetTable } from './transactions/assets.js';
import { expireDue } from './transactions/expiry.js';
import { NameBackfill } from './transactions/name-backfill.js';
import { NameIndex } from './transactions/name-index.js';
import { adminOverviewRoutes, overviewRoutes } from './transactions/overview-routes.js';
import { transactionRoutes } from './transactions/routes.js';
import { TransactionService } from './transactions/service.js';
import { TravelAddresses } from './trp/addresses.js';
import { TrpBridge } from './trp/bridge.js';
import { TrpCallbacks } from './trp/callbacks.js';
import { TrpCounterparties } from './trp/counterparties.js';
import { counterpartyRoutes } from './trp/counterparty-routes.js';
import { createTrpListener, type TrpListener } from './trp/listener.js';
import { travelAddressRoutes } from './trp/routes.js';
import { TrpPeerSender } from './trp/sender.js';
import { VERSION } from './version.js';
import { walletProofRoutes } from './wallets/routes.js';
import { WalletProofs } from './wallets/service.js';

export const BODY_LIMIT = 256 * 1024;
export { VERSION } from './version.js';

/** Log paths that may hold secrets or personal data; pino replaces them. */
const REDACT = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  '*.password',
  '*.totp',
  '*.csrfToken',
  '*.recoveryCodes',
  '*.pii',
  '*.apiKey',
  '*.webhookSecret',
  '*.secret',
  '*.clientSecret',
  '*.ivms101Data',
  '*.encryptedPii',
];

export interface BuildOptions {
  config: Config;
  db: Database;
  secrets: HubSecrets;
  /** Where logs go (tests capture them); stdout by default. */
  logStream?: Writable;
  /** What deliveries do to transactions; the transaction service by default. */
  hooks?: DeliveryHooks;
}

export interface Hub {
  app: HubApp;
  directory: DirectoryService;
  transactions: TransactionService;
  deliveries: Deliveries;
  claims: ClaimService;
  /** What a process with HUB_WORKER runs besides the API: the delivery worker and the expiry sweep. */
  background: { start(): Promise<void>; stop(): Promise<void> };
  /** The TRP listener (SPEC §16), when HUB_TRP_PORT is set; closing the app closes it. */
  trp: TrpListener | undefined;
}

export async function buildApp({ config, db, secrets, logStream, hooks }: BuildOptions): Promise<Hub> {
  let auth: Authenticator | undefined;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { err: serializeError, req: serializeRequest },
      ...(logStream ? { stream: logStream } : {}),
    },
    bodyLimit: BODY_LIMIT,
    // A request must arrive whole within 30 s (SPEC §13), its headers within 10 s (set below): no
    // one holds a connection open by trickling a request.
    requestTimeout: 30_000,
    childLoggerFactory: lazyRequestLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true },
      // Ajv's `uuid` also takes a `urn:uuid:` prefix, which a uuid column refuses (it was a 500).
      onCreate: (ajv) => {
        ajv.addFormat('uuid', UUID);
        addDocumentedAs(ajv);
      },
    },
    schemaController: { compilersFactory: lazyCompilers() },
    // Answered by the onRequest hook below instead, as problem+json.
    return503OnClosing: false,
    // Errors raised before any hook or handler runs, answered as problem+json like the rest.
    frameworkErrors: (error, request, reply) =>
      answerFrameworkError(error, request, reply, auth?.authenticate),
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.headersTimeout = 10_000;
  // Only JSON bodies: text/plain would otherwise be accepted and reach validation as a string.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  // Set as the request starts (a callback hook: no promise per request), so every answer carries
  // them, errors included; the dashboard's static files set their own caching.
  // While the hub shuts down, a request that still arrives on an open connection (pipelined, or
  // on a keep-alive connection) gets 503 UNAVAILABLE as problem+json, and the connection closes.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    setCommonHeaders(request, reply);
    if (closing) {
      reply.header('connection', 'close');
      return done(new AppError('UNAVAILABLE', 'The hub is shutting down; send the request again.'));
    }
    done();
  });

  // The current master key seals; previous ones still open what they sealed (SPEC §14).
  const keys = KeyRing.of(secrets.masterKey, secrets.previousMasterKeys ?? []);
  const directory = new DirectoryService(db, keys, config.allowPrivateEndpoints);
  const assets = assetTable(config.assetTableFile);
  const rules = rulesService(config, db, directory);
  const registry = createRegistry();
  const tokens = new LinkTokens(keys, await loadLinkKey(db, keys));
  // The customer-name blind index's key: the hub's own, so a master-key rotation keeps it (SPEC §17).
  const names = new NameIndex(await loadHubKey(db, keys, 'name-index', 'trh/name-index'));
  const allowPrivate = config.allowPrivateEndpoints;
  const trpCallbacks = config.trp && new TrpCallbacks(config.trp.publicUrl, tokens, allowPrivate);
  const trpSender =
    config.trp &&
    trpCallbacks &&
    new TrpPeerSender({
      db,
      config: config.trp,
      allowPrivate,
      assets,
      callbacks: trpCallbacks,
      hooks: {
        readPii: (ref) => transactions.readPii(ref),
        readReason: (ref) => transactions.readReason(ref),
      },
    });
  const deliveries = createDeliveries({
    config,
    db,
    directory,
    trp: trpSender,
    // What deliveries do to transactions: the transaction service and the TRP bridge below, unless a
    // test says otherwise.
    hooks: hooks ?? {
      readPii: (ref) => transactions.readPii(ref),
      readReason: (ref) => transactions.readReason(ref),
      deliveryOutcomes: async (tx, batch) => {
        const moves = await transactions.deliveryOutcomes(tx, batch);
        return async (delivered) => {
          await moves(delivered);
          await trpBridge?.deliveryOutcomes(tx, delivered);
        };
      },
    },
    registry,
    log: app.log,
    links: () =>
      tokens.links(
        config.publicUrl ?? listenUrl(app) ?? `http://${config.host}:${config.port}`,
        config.operatorContact,
      ),
  });
  const transactions: TransactionService = new TransactionService(db, keys, deliveries.outbox, {
    lookups: directory.lookups,
    notifyDailyLimit: config.notifyDailyLimit,
    claimHash: (ref) => tokenHash(tokens.claimToken(ref)),
    trp: () => trpBridge,
    names,
  });
  const trpBridge: TrpBridge | undefined =
    trpCallbacks &&
    new TrpBridge({
      db,
      masterKey: keys,
      names,
      allowPrivate,
      assets,
      callbacks: trpCallbacks,
      outbox: deliveries.outbox,
      moves: transactions.trpMoves,
    });
  const trp = config.trp && trpBridge && createTrpListener(config.trp, trpBridge, app.log, config.rateLimit);
  const claims = new ClaimService(db, keys, tokens, directory, transactions.lifecycle);
  const erasure = new Erasure(db, keys);
  // Expiry, retention and endpoint-down notices: each at least every 10 s (or 1 min), sooner when its setting is shorter.
  const periodic = [
    new Periodic('expiry sweep', Math.min(10_000, config.pendingExpiryMs), app.log, () =>
      expireDue(db, transactions.lifecycle, config.pendingExpiryMs),
    ),
    new Periodic('retention sweep', Math.min(10_000, config.retentionMs), app.log, () =>
      erasure.eraseDue(config.retentionMs, app.log),
    ),
    new Periodic('endpoint-down check', endpointDownCheckMs(config.endpointDownAfterMs), app.log, () =>
      notifyEndpointsDown(db, app.log, config.endpointDownAfterMs),
    ),
  ];
  // The embedded database has one owner: the serving hub re-seals itself (src/keys/background.ts).
  const rekeyJob = new BackgroundRekey(db, keys, app.log, { batchSize: 200, pauseMs: 100 });
  const nameBackfill = new NameBackfill(db, keys, names, app.log, { batchSize: 200, pauseMs: 50 });
  const background = {
    start: async () => {
      await deliveries.worker.start();
      for (const job of periodic) job.start();
      if (config.databaseUrl === undefined) rekeyJob.start();
      nameBackfill.start();
    },
    stop: async () => {
      await Promise.all([
        deliveries.worker.stop(),
        ...periodic.map((job) => job.stop()),
        rekeyJob.stop(),
        nameBackfill.stop(),
      ]);
    },
  };
  app.addHook('onClose', async () => {
    await Promise.all([
      ...periodic.map((job) => job.stop()),
      rekeyJob.stop(),
      nameBackfill.stop(),
      deliveries.close(),
      trp?.close(),
    ]);
    await trpSender?.close();
  });
  const unwatchDirectory = await directory.watch();
  app.addHook('onClose', () => unwatchDirectory());

  registerProblemHandlers(app);
  app.addSchema(Problem);
  const webhookDocs = webhooksDocument();
  await registerOpenApi(app, {
    info: {
      title: 'Travel Rule Hub API',
      version: VERSION,
      description:
        'Travel rule (FATF Recommendation 16) messaging between VASPs: directory, MAIN / BASIC / NOTIFY ' +
        'transactions, and signed webhooks. Errors are RFC 9457 problem+json.',
    },
    tags: [
      { name: 'directory', description: 'Organizations (VASPs) in the network' },
      { name: 'transactions', description: 'Initiate, confirm, decline, share the hash, read' },
      { name: 'webhooks', description: 'Deliveries owed to the caller, redelivery, a signed test event' },
      { name: 'trp', description: 'The TRP bridge: travel addresses for Travel Rule Protocol VASPs' },
      { name: 'ivms101', description: 'Check an IVMS101 payload in any dialect, as the hub reads it' },
      { name: 'people', description: 'Users, invitations, sessions and second factors (SPEC §17)' },
      { name: 'operator', description: 'Operator API (operator key only)' },
      { name: 'operations', description: 'Health, readiness and metrics' },
    ],
    webhooks: webhookDocs.webhooks,
    schemas: { Pii: PiiSchema, ...webhookDocs.schemas },
  });
  if (config.rateLimit > 0) {
    await app.register(rateLimit, {
      max: config.rateLimit,
      timeWindow: 1000,
      cache: 20_000,
      // By who the caller turned out to be (this check runs after authentication), never by the
      // raw header: unchecked header values as bucket names let anyone fill the store (and dodge
      // the per-address limit) outside /v1.
      // Per organization, not per key: more keys buy no more requests.
      keyGenerator: rateLimitBucket,
      errorResponseBuilder: () =>
        new AppError('RATE_LIMITED', 'Too many requests for this organization; retry later.'),
    });
  }
  const operators = new OperatorService(db, directory);
  const sessions = new SessionService(db, keys, { idleMs: config.sessionIdleMs, maxMs: config.sessionMaxMs });
  const people = new PeopleService({
    db,
    keys,
    invitationToken: (id) => tokens.invitationToken(id),
    organizationName: async (id) => (await directory.lookups.byId(id))?.name,
  });
  auth = registerAuth(
    app,
    secrets.adminKey,
    {
      authenticate: (hash) => directory.authenticate(hash),
      authenticateOperator: (hash) => operators.authenticate(hash),
    },
    { failuresPerSecond: config.rateLimit, sessions },
  );
  registerHttpMetrics(app, registry);

  const ops = { tags: ['operations'], security: [] };
  app.get(
    '/healthz',
    {
      schema: { ...ops, summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      config: { rateLimit: false },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        ...ops,
        summary: 'Readiness: the database answers',
        response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: problems(503)[503] },
      },
      config: { rateLimit: false },
    },
    async () => {
      try {
        await db.query('SELECT 1');
      } catch (err) {
        throw new AppError('UNAVAILABLE', 'The database is not reachable.', undefined, { cause: err });
      }
      return { status: 'ready' as const };
    },
  );

  directoryRoutes(app, directory);
  adminDirectoryRoutes(app, directory);
  counterpartyDirectoryRoutes(app, db);
  adminOrganizationHealthRoutes(app, db);
  operatorRoutes(app, operators);
  peopleRoutes(app, people, sessions, {
    secureCookies: secureCookies(config.publicUrl, config.host),
    failed: auth.failed,
  });
  adminPeopleRoutes(app, people);
  oidcRoutes(
    app,
    new OidcService({
      db,
      keys,
      sessions,
      allowPrivate,
      baseUrl: () => config.publicUrl ?? listenUrl(app) ?? `http://${config.host}:${config.port}`,
    }),
    { secureCookies: secureCookies(config.publicUrl, config.host), failed: auth.failed },
  );
  adminOperationsRoutes(app, db);
  rekeyRoutes(app, rekeyJob);
  auditRoutes(
    app,
    new AuditService(db, AuditSigner.forConfig(config, secrets.masterKey), {
      onBackgroundError: (err) =>
        app.log.error({ err }, 'audit chain status: the walk failed; the next stale request tries again'),
    }),
  );
  ivms101Routes(app);
  const walletProofs = new WalletProofs(db);
  const reviews = new ReviewService(db, keys);
  transactionRoutes(app, transactions, assets, {
    before: async (orgId, body) => {
      const heldTo = await rules.enforce(orgId, body);
      const walletProof = await walletProofs.forInitiation(orgId, body);
      return { ...(heldTo ? { rules: heldTo } : {}), ...(walletProof ? { walletProof } : {}) };
    },
    review: (request, ref) => reviews.read(db, reviewCallerOf(request), ref),
  });
  reviewRoutes(app, reviews);
  adminQueueRoutes(app, () => claims.pendingCount());
  overviewRoutes(app, db);
  adminOverviewRoutes(app, db);
  rulesRoutes(app, rules, assets, transactions);
  walletProofRoutes(app, walletProofs, transactions);
  travelAddressRoutes(app, new TravelAddresses(db, config.trp));
  counterpartyRoutes(app, new TrpCounterparties(db));
  claimRoutes(app, claims, auth.failed);
  adminClaimRoutes(app, claims);
  adminRetentionRoutes(app, erasure);
  deliveries.registerRoutes(app);
  await dashboardRoutes(app);
  await docsRoutes(app);

  return { app, directory, transactions, deliveries, claims, background, trp };
}

/** `http://host:port` the app listens on, once it does. */
function listenUrl(app: HubApp): string | undefined {
  const a = app.server.address();
  if (!a || typeof a === 'string') return undefined;
  return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
}

/** The asset table: HUB_ASSET_TABLE's file (which replaces the built-in one) or assets.json. */
function assetTable(file: string | undefined) {
  if (file === undefined) return loadAssetTable();
  try {
    return loadAssetTable(file);
  } catch (err) {
    throw new ConfigError(`HUB_ASSET_TABLE: ${(err as Error).message}`);
  }
}

/** The jurisdiction rules (SPEC §15): HUB_RULES_FILE (or rules.json) and HUB_FX_RATES, checked at start. */
function rulesService(config: Config, db: Database, directory: DirectoryService): RulesService {
  let table: ReturnType<typeof loadRulesTable>;
  try {
    table = config.rulesFile === undefined ? loadRulesTable() : loadRulesTable(config.rulesFile);
  } catch (err) {
    throw new ConfigError(`HUB_RULES_FILE: ${(err as Error).message}`);
  }
  let fx = NO_RATES;
  if (config.fxRatesFile !== undefined) {
    try {
      fx = loadFxRates(config.fxRatesFile);
    } catch (err) {
      throw new ConfigError(`HUB_FX_RATES: ${(err as Error).message}`);
    }
  }
  return new RulesService(db, table, fx, config.fxRatesFile !== undefined, directory.lookups);
}
