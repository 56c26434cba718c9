/**
 * A hub as its own process (`travel-rule-hub serve`), for tests that kill or multiply it: started
 * with an environment, ready once it printed its URL, stopped by a signal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const CLI = ['--import', 'tsx', new URL('../../src/cli/index.ts', import.meta.url).pathname];

export function hubEnv(extra: Record<string, string>): Record<string, string> {
  return {
    HUB_ADMIN_KEY: `trh_admin_${randomBytes(24).toString('base64url')}`,
    HUB_MASTER_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    HUB_RATE_LIMIT: '0',
    HUB_LOG_LEVEL: 'warn',
    HUB_ALLOW_PRIVATE_ENDPOINTS: 'true',
    ...extra,
  };
}

export class HubProcess {
  output = '';
  private constructor(
    readonly child: ChildProcess,
    readonly adminKey: string,
  ) {}

  url = '';

  /** `serve` is ready once it printed its URL; `worker` (no HTTP) once it says it runs. */
  static start(
    env: Record<string, string>,
    timeoutMs = 60_000,
    command: 'serve' | 'worker' = 'serve',
  ): Promise<HubProcess> {
    const child = spawn(process.execPath, [...CLI, command], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const hub = new HubProcess(child, env.HUB_ADMIN_KEY!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`hub did not start within ${timeoutMs} ms:\n${hub.output}`));
      }, timeoutMs);
      const onData = (d: Buffer) => {
        hub.output += d;
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(hub.output);
        const ready =
          command === 'worker'
            ? /delivery worker running/.test(hub.output)
            : m && /Delivery worker:/.test(hub.output);
        if (ready && !hub.url) {
          hub.url = m?.[1] ?? 'no-http';
          clearTimeout(timer);
          resolve(hub);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!hub.url) reject(new Error(`hub exited (${code ?? signal}) before starting:\n${hub.output}`));
      });
    });
  }

  /** Sends `signal` and resolves with the exit code (or signal name) once the process is gone. */
  stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<number | string> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      return Promise.resolve(this.child.exitCode ?? this.child.signalCode!);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`hub did not exit within ${timeoutMs} ms after ${signal}`));
      }, timeoutMs);
      this.child.once('exit', (code, sig) => {
        clearTimeout(timer);
        resolve(code ?? sig ?? -1);
      });
      this.child.kill(signal);
    });
  }

  async request<T = any>(method: string, path: string, key: string, body?: unknown) {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, text };
  }

  async createOrg(fields: Record<string, unknown>) {
    const suffix = randomBytes(5).toString('hex');
    const res = await this.request('POST', '/v1/admin/organizations', this.adminKey, {
      name: `VASP ${suffix}`,
      vaspDid: `did:web:vasp-${suffix}.example`,
      ...fields,
    });
    if (res.status !== 201) throw new Error(`createOrg: ${res.status} ${res.text}`);
    return {
      id: res.body.organization.id as string,
      vaspDid: res.body.organization.vaspDid as string,
      apiKey: res.body.apiKey as string,
      webhookSecret: res.body.webhookSecret as string,
    };
  }
}
