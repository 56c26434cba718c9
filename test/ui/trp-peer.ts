/**
 * A TRP VASP outside the hub, for the dashboard's TRP suite: a hub with its TRP listener on
 * 127.0.0.1 (certificates from one test CA), and a peer that holds a certificate from the same CA.
 * The peer sends inquiries to a member's travel address as a client (mutual TLS, the TRP
 * headers), and runs an HTTPS server that answers the hub's `/identity` request with its name and
 * LEI, takes the hub's inquiries under `/inquiries/` (to decide later) and records the resolutions
 * the hub sends to its callback. Copied in spirit from
 * test/trp/bridge.test.ts, whose `trpCall` this is.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { Leaf, TestCa } from '../../scripts/certs.js';
import { startHub, type TestHub } from '../harness.js';
import { basicRequest, type Json, uniqueName } from '../support/requests.js';

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A hub (PGlite) with a TRP listener, its certificate issued by `ca`. */
export async function trpHub(ca: TestCa, env: Record<string, string> = {}): Promise<TestHub> {
  const port = await freePort();
  const leaf = ca.issue('dashboard-hub');
  return startHub('pglite', {
    HUB_TRP_PORT: String(port),
    HUB_TRP_PUBLIC_URL: `https://127.0.0.1:${port}`,
    HUB_TRP_TLS_CERT: leaf.certFile,
    HUB_TRP_TLS_KEY: leaf.keyFile,
    HUB_TRP_TLS_CA: ca.certFile,
    ...env,
  });
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
    private readonly server: Server,
    /** `https://127.0.0.1:<port>`: the host the hub knows this peer by. */
    readonly url: string,
  ) {}

  static async start(ca: TestCa, identity: { name: string; lei: string }): Promise<TrpPeer> {
    const leaf = ca.issue('peer-vasp');
    const seen: PeerRequest[] = [];
    let self: TrpPeer | undefined;
    const server = createHttpsServer(
      { cert: leaf.cert, key: leaf.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          seen.push({ method: req.method ?? '', path: req.url ?? '', body: text ? JSON.parse(text) : {} });
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
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    self = new TrpPeer(seen, ca, leaf, server, `https://127.0.0.1:${port}`);
    return self;
  }

  /**
   * Sends an inquiry (ETH-USDC 12.5, the smallest unit as a digit string) for the customer named
   * `name` to a travel address's URL; resolves to the listener's HTTP status.
   */
  inquire(url: string, name = uniqueName()): Promise<number> {
    const pii = basicRequest('did:web:unused.example', name).pii;
    const body = JSON.stringify({
      asset: { dti: 'CK9PW1MFH' },
      amount: '12500000',
      callback: `${this.url}/callback/${randomUUID()}`,
      IVMS101: { originator: pii.originator, beneficiary: pii.beneficiary },
    });
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: 'POST',
          ca: this.ca.cert,
          cert: this.leaf.cert,
          key: this.leaf.key,
          headers: {
            'api-version': '3.2.1',
            'request-identifier': randomUUID(),
            'content-type': 'application/json; charset=utf-8',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
