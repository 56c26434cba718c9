/**
 * TRP VASPs outside the hub, for the TRP and dashboard suites: a hub with its TRP listener on
 * 127.0.0.1 (certificates from one test CA), a POST as a peer makes it (mutual TLS, the TRP
 * headers), the bodies peers send, and `TrpPeer`, a peer with a certificate from the same CA. It
 * runs an HTTPS server that answers the hub's `/identity` request with its name and LEI, takes the
 * hub's inquiries under `/inquiries/` (to decide later) and records the resolutions the hub sends
 * to its callback; as a client it sends inquiries to a member's travel address.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { Leaf, TestCa } from '../../scripts/certs.js';
import { encodeTravelAddress } from '../../src/trp/travel-address.js';
import { type Backend, startHub, type TestHub } from '../harness.js';
import { basicRequest, type Json, mainRequest, uniqueName } from './requests.js';

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A hub with a TRP listener, its certificate (named `name`) issued by `ca`. */
export async function trpHub(
  backend: Backend,
  ca: TestCa,
  name: string,
  env: Record<string, string> = {},
): Promise<TestHub> {
  const leaf = ca.issue(name);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startHub(backend, {
        HUB_TRP_PORT: String(port),
        HUB_TRP_PUBLIC_URL: `https://127.0.0.1:${port}`,
        HUB_TRP_TLS_CERT: leaf.certFile,
        HUB_TRP_TLS_KEY: leaf.keyFile,
        HUB_TRP_TLS_CA: ca.certFile,
        ...env,
      });
    } catch (err) {
      // The port was free when picked, but another socket (an outgoing connection's ephemeral
      // port, say) can take it before the hub listens: pick another.
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
    }
  }
}

/** A POST as a TRP peer makes it: its certificate, `api-version`, a `request-identifier`, JSON. */
export function peerPost(
  url: string,
  from: { ca: TestCa; leaf: Leaf },
  body: unknown,
  headers: { version?: string; rid?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        ca: from.ca.cert,
        cert: from.leaf.cert,
        key: from.leaf.key,
        headers: {
          'api-version': headers.version ?? '3.2.1',
          'request-identifier': headers.rid ?? randomUUID(),
          'content-type': 'application/json; charset=utf-8',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** An inquiry as a TRP VASP sends it, for ETH-USDC 12.5 (a digit string in the smallest unit). */
export function inquiryBody(callback: string, name = uniqueName()): Json {
  const pii = basicRequest('did:web:unused.example', name).pii;
  return {
    asset: { dti: 'CK9PW1MFH' },
    amount: '12500000',
    callback,
    IVMS101: { originator: pii.originator, beneficiary: pii.beneficiary },
  };
}

/** A member's initiation of a MAIN-shaped transfer to the peer at `peerUrl`, by TRP. */
export function trpInitiation(peerUrl: string): Json {
  const body: Json = {
    ...mainRequest('did:web:unused.example'),
    protocol: 'TRP',
    travelAddress: encodeTravelAddress(`${peerUrl.slice('https://'.length)}/inquiries/x?t=i`),
    transactionBlockchainInfo: { origin: '0x1111111111111111111111111111111111111111' },
  };
  delete body.beneficiaryVASPdid;
  return body;
}

/** A peer's HTTPS server: mutual TLS under `ca`'s certificates, on 127.0.0.1. */
export interface PeerServer {
  server: Server;
  /** `https://127.0.0.1:<port>`: the host the hub knows the peer by. */
  url: string;
  close(): Promise<void>;
}

/** Starts a peer's server; `answer` gets each request with its body read (JSON, `{}` when empty). */
export async function startPeerServer(
  ca: TestCa,
  leaf: Leaf,
  answer: (req: IncomingMessage, body: Json, res: ServerResponse) => void,
): Promise<PeerServer> {
  const server = createHttpsServer(
    { cert: leaf.cert, key: leaf.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        answer(req, text ? JSON.parse(text) : {}, res);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    url: `https://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the peer received from the hub. */
export interface PeerRequest {
  method: string;
  path: string;
  body: Json;
}

export class TrpPeer {
  /** While true, the callback answers 503: the hub's resolutions and confirmations fail. */
  refuseCallbacks = false;

  private constructor(
    /** Every request the hub made to the peer, in order. */
    readonly seen: PeerRequest[],
    private readonly ca: TestCa,
    private readonly leaf: Leaf,
    private readonly peer: PeerServer,
  ) {}

  /** `https://127.0.0.1:<port>`: the host the hub knows this peer by. */
  get url(): string {
    return this.peer.url;
  }

  static async start(ca: TestCa, identity: { name: string; lei: string }): Promise<TrpPeer> {
    const leaf = ca.issue('peer-vasp');
    const seen: PeerRequest[] = [];
    let self: TrpPeer | undefined;
    const peer = await startPeerServer(ca, leaf, (req, body, res) => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', body });
      if (req.url === '/identity' || req.url?.startsWith('/inquiries/')) {
        // Its identity, or an inquiry from the hub taken for a later decision.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url === '/identity' ? identity : { version: '3.2.1' }));
        return;
      }
      // A resolution or confirmation from the hub, at its callback.
      res.writeHead(self?.refuseCallbacks ? 503 : 204);
      res.end();
    });
    self = new TrpPeer(seen, ca, leaf, peer);
    return self;
  }

  /**
   * Sends an inquiry (ETH-USDC 12.5, the smallest unit as a digit string) for the customer named
   * `name` to a travel address's URL; resolves to the listener's HTTP status.
   */
  async inquire(url: string, name = uniqueName()): Promise<number> {
    const body = inquiryBody(`${this.url}/callback/${randomUUID()}`, name);
    return (await peerPost(url, { ca: this.ca, leaf: this.leaf }, body)).status;
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}
