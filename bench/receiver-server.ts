/**
 * The benchmark's webhook receiver, in a process of its own so it does not share a thread
 * with the load generator or the hub. Answers every POST with 200 at once and records when
 * each message arrived (epoch ms, comparable across processes). GET /stats returns counts
 * and arrival times by transactionRef (with `?times=1`, also when each new message id arrived);
 * POST /reset clears them. Prints `READY <port>`.
 * With `--listeners=N` it listens on N ports, each an endpoint of its own (a sender pools its
 * connections per origin), which share the counts and arrival times: `READY <port> <port> …`.
 * With `--hang` it stands for a receiver that never answers: it reads and counts every webhook
 * and holds its connection open without a word until the sender gives up (or this process ends).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const hang = process.argv.includes('--hang');
const listeners = Number(process.argv.find((a) => a.startsWith('--listeners='))?.slice(12) ?? 1);
let count = 0;
const ids = new Set<string>();
let duplicates = 0;
let arrivals: Record<string, number> = {};
/** When each new message id arrived, in order (GET /stats?times=1). */
let uniqueTimes: number[] = [];
const now = () => performance.timeOrigin + performance.now();

const handle = (req: IncomingMessage, res: ServerResponse) => {
  if (req.method === 'GET' && req.url?.startsWith('/stats')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const times = req.url.endsWith('?times=1') ? { uniqueTimes } : {};
    res.end(JSON.stringify({ count, unique: ids.size, duplicates, arrivals, ...times }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    count = 0;
    duplicates = 0;
    ids.clear();
    arrivals = {};
    uniqueTimes = [];
    res.writeHead(204).end();
    return;
  }
  if (hang) {
    req.resume();
    req.on('end', () => count++);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    count++;
    const id = String(req.headers['webhook-id'] ?? count);
    if (ids.has(id)) duplicates++;
    else {
      ids.add(id);
      uniqueTimes.push(at);
    }
    if (req.url?.endsWith('/received')) {
      const ref = /"transactionRef":"([0-9a-f-]{36})"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
      if (ref) arrivals[ref] = at;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
};

const servers = Array.from({ length: listeners }, () => {
  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  return server;
});
const ports = await Promise.all(
  servers.map(
    (server) =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => {
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : 0);
        }),
      ),
  ),
);
process.stdout.write(`READY ${ports.join(' ')}\n`);
process.on('SIGTERM', async () => {
  // Held connections end with the process: their senders see them reset.
  if (hang) process.exit(0);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  process.exit(0);
});
