/**
 * The TRP listener (SPEC §16): an HTTPS server of its own on HUB_TRP_PORT, apart from the member
 * API. Peers post inquiries to travel addresses (`/ta/{token}`, with or without `?t=i`) and their
 * decisions and confirmations to the callbacks this hub gave them; the discoverability GETs are
 * open to anyone. A connection with a client certificate the TRP CA did not sign is closed after
 * the handshake; every POST needs a trusted one (401 without), the TRP headers (400; 501 for an extension we do not support) and a JSON body
 * (415; 400 when it does not parse). Answers echo `api-version` and `request-identifier`.
 * Routes are thin: the bridge decides.
 */
import type { TLSSocket } from 'node:tls';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TrpConfig } from '../config.js';
import { serializeError, serializeRequest } from '../http/error-log.js';
import { VERSION } from '../version.js';
import type { Peer, TrpAnswer, TrpBridge } from './bridge.js';
import { acceptsTrpVersion, isJsonContentType, isRequestIdentifier, parseApiExtensions } from './headers.js';
import { TRP_HEADER, TRP_VERSION } from './messages.js';

const BODY_LIMIT = 1024 * 1024;

type TokenRequest = FastifyRequest<{ Params: { token: string }; Body: string | undefined }>;

export interface TrpListener {
  /** Starts listening on HUB_TRP_PORT (0: any free port); returns the address as an https URL. */
  listen(host: string): Promise<string>;
  close(): Promise<void>;
}

export function createTrpListener(
  config: TrpConfig,
  bridge: TrpBridge,
  log: FastifyBaseLogger,
  /** Requests per second per client address (HUB_RATE_LIMIT); 0: no limit. */
  rateLimitPerSecond: number,
): TrpListener {
  const started = Date.now();
  const app = Fastify({
    loggerInstance: log.child({ component: 'trp' }, { serializers: { req: serializeRequest } }),
    bodyLimit: BODY_LIMIT,
    requestTimeout: 30_000,
    https: {
      cert: config.cert,
      key: config.key,
      ...(config.ca === undefined ? {} : { ca: config.ca }),
      // Asked for, then judged per route: the discoverability GETs are open to anyone.
      requestCert: config.mtls,
      rejectUnauthorized: false,
    },
  });
  app.server.headersTimeout = 10_000;
  // A client certificate this hub does not trust ends the connection right after the handshake,
  // before any HTTP: TLS's refusal. Without a certificate the discoverability GETs stay open, and
  // a POST gets 401.
  if (config.mtls) {
    app.server.on('secureConnection', (socket: TLSSocket) => {
      if (!socket.authorized && socket.getPeerX509Certificate() !== undefined) socket.destroy();
    });
  }

  if (rateLimitPerSecond > 0) {
    void app.register(rateLimit, {
      max: rateLimitPerSecond,
      timeWindow: 1000,
      cache: 20_000,
      keyGenerator: (request) => request.ip,
      errorResponseBuilder: () => ({
        statusCode: 429,
        error: 'Too many requests from this address; retry later.',
      }),
    });
  }

  // Bodies arrive as text whatever their content type: the route decides (415, 400) in TRP's terms.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  const parseJson = (request: FastifyRequest, text: string) =>
    new Promise<unknown>((resolve, reject) =>
      jsonParser(request, text, (err, value) => (err ? reject(err) : resolve(value))),
    );

  app.addHook('onRequest', (request, reply, done) => {
    // Answers are in the version the peer spoke, when it is one we take (SPEC §16).
    const spoken = request.headers[TRP_HEADER.apiVersion];
    reply.header(
      TRP_HEADER.apiVersion,
      typeof spoken === 'string' && acceptsTrpVersion(spoken) ? spoken.trim() : TRP_VERSION,
    );
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    const rid = request.headers[TRP_HEADER.requestIdentifier];
    if (typeof rid === 'string' && isRequestIdentifier(rid)) reply.header(TRP_HEADER.requestIdentifier, rid);
    done();
  });

  app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
    const status =
      err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err: serializeError(err) }, 'TRP request failed');
    // The rate limiter throws its answer's body (`error`), Fastify its own errors (`message`).
    const message = err.message || (err as { error?: string }).error || 'The request was refused.';
    reply.code(status).send({ error: status === 500 ? 'Internal error; it has been logged.' : message });
  });
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ error: 'Not a TRP endpoint of this hub.' });
  });

  /** The checks every TRP POST passes, then the body as JSON; or the refusal, already sent. */
  async function admit(
    request: TokenRequest,
    reply: FastifyReply,
  ): Promise<{ peer: Peer; requestIdentifier: string; apiVersion: string; body: unknown } | undefined> {
    const refuse = (status: number, error: string) => {
      reply.code(status).send({ error });
      return undefined;
    };
    const socket = request.raw.socket as TLSSocket;
    const cert = config.mtls ? socket.getPeerX509Certificate() : undefined;
    if (config.mtls && !cert) return refuse(401, 'A client certificate is required.');
    if (config.mtls && !socket.authorized)
      return refuse(403, 'The client certificate is not one this hub trusts.');
    const h = request.headers;
    const version = h[TRP_HEADER.apiVersion];
    if (typeof version !== 'string' || !acceptsTrpVersion(version)) {
      return refuse(400, `api-version must be a TRP 3.x version such as ${TRP_VERSION}.`);
    }
    const rid = h[TRP_HEADER.requestIdentifier];
    if (typeof rid !== 'string' || !isRequestIdentifier(rid))
      return refuse(400, 'request-identifier must be a UUID.');
    const named = h[TRP_HEADER.apiExtensions];
    const extensions = parseApiExtensions(Array.isArray(named) ? named.join(',') : named);
    if (extensions.length > 0) return refuse(501, 'This hub supports no TRP extensions.');
    if (!isJsonContentType(h['content-type'])) return refuse(415, 'The body must be application/json.');
    const text = request.body ?? '';
    if (text.includes('\\u0000')) return refuse(400, 'The body must not contain the NUL character.');
    let body: unknown;
    try {
      body = await parseJson(request, text);
    } catch {
      return refuse(400, 'The body is not valid JSON.');
    }
    const peer: Peer = cert
      ? {
          fingerprint: cert.fingerprint256,
          subject: cert.subject.replaceAll('\n', ', '),
          names: certificateNames(cert.subjectAltName),
        }
      : { fingerprint: 'none', subject: null, names: null };
    return { peer, requestIdentifier: rid.toLowerCase(), apiVersion: version.trim(), body };
  }

  const answer = (reply: FastifyReply, a: TrpAnswer) =>
    a.body === undefined ? reply.code(a.status).send() : reply.code(a.status).send(a.body);

  // Routes in a plugin of their own, registered after the rate limiter so that it applies to them.
  void app.register(async (routes) => {
    routes.post('/ta/:token', async (request: TokenRequest, reply) => {
      const admitted = await admit(request, reply);
      if (!admitted) return reply;
      const { peer, requestIdentifier, apiVersion, body } = admitted;
      return answer(
        reply,
        await bridge.inquiry(request.params.token, requestIdentifier, peer, body, apiVersion),
      );
    });
    routes.post('/trp/resolutions/:token', async (request: TokenRequest, reply) => {
      const admitted = await admit(request, reply);
      if (!admitted) return reply;
      return answer(
        reply,
        await bridge.resolution(request.params.token, admitted.requestIdentifier, admitted.body),
      );
    });
    routes.post('/trp/confirmations/:token', async (request: TokenRequest, reply) => {
      const admitted = await admit(request, reply);
      if (!admitted) return reply;
      const { peer, requestIdentifier, body } = admitted;
      return answer(reply, await bridge.confirmation(request.params.token, requestIdentifier, peer, body));
    });

    const host = new URL(config.publicUrl).host;
    const certificate = config.cert.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/,
    )?.[0];
    routes.get('/identity', async () => ({ name: `Travel Rule Hub at ${host}`, x509: certificate }));
    routes.get('/version', async () => ({ version: TRP_VERSION, vendor: `Travel Rule Hub ${VERSION}` }));
    routes.get('/uptime', async (_request, reply) =>
      reply.type('text/plain; charset=utf-8').send(String(Math.floor((Date.now() - started) / 1000))),
    );
    routes.get('/extensions', async () => ({ required: [], supported: [] }));
  });

  return {
    async listen(listenHost) {
      await app.listen({ port: config.port, host: listenHost });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      return `https://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${port}`;
    },
    close: () => app.close(),
  };
}

/** The DNS names and IP addresses a certificate's subjectAltName lists, lower-case. */
export function certificateNames(subjectAltName: string | undefined): string[] {
  if (!subjectAltName) return [];
  const names: string[] = [];
  for (const entry of subjectAltName.split(/,\s*/)) {
    const match = /^(DNS|IP Address):(.+)$/.exec(entry.trim());
    if (match) names.push(match[2]!.trim().toLowerCase());
  }
  return names;
}
