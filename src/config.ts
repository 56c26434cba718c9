/**
 * The one place that reads the environment (SPEC §2). Every setting is parsed and validated
 * here, once, at start; a bad value throws a ConfigError whose message is one line naming
 * the setting. The result is frozen and handed down; nothing else reads `process.env`.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Sends in flight to one recipient at most, per worker, unless HUB_MAX_INFLIGHT_PER_RECIPIENT says (SPEC §13). */
export const DEFAULT_MAX_INFLIGHT_PER_RECIPIENT = 16;

import { parseRetrySchedule } from './deliveries/retry.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Operator key from the environment; when undefined it is generated or read from dataDir. */
  readonly adminKey: string | undefined;
  /** 32-byte key-encryption key from the environment; when undefined, generated in dataDir. */
  readonly masterKey: Buffer | undefined;
  /** HUB_MASTER_KEY_FILE: where masterKey was read from, when it came from a file (SPEC §14). */
  readonly masterKeyFile: string | undefined;
  /** HUB_MASTER_KEYS_PREVIOUS: older master keys that still open what they sealed (SPEC §14). */
  readonly previousMasterKeys: readonly Buffer[];
  /** HUB_RETENTION: personal data is erased this long after a transaction's last state change (ms). */
  readonly retentionMs: number;
  readonly smtpUrl: string | undefined;
  readonly allowPrivateEndpoints: boolean;
  readonly worker: boolean;
  readonly rateLimit: number;
  readonly logLevel: string;
  readonly retrySchedule: readonly number[];
  readonly assetTableFile: string | undefined;
  /** The jurisdiction rules table replacing the shipped rules.json (SPEC §15). */
  readonly rulesFile: string | undefined;
  /** The operator's currency rates for comparing transfer values with thresholds (SPEC §15). */
  readonly fxRatesFile: string | undefined;
  readonly publicUrl: string | undefined;
  /**
   * HUB_OPERATOR_CONTACT: how outsiders reach the hub's operator (an e-mail address or an http(s)
   * URL), named in every e-mail to them; undefined: the e-mails point at the hub's public URL.
   */
  readonly operatorContact: string | undefined;
  /** Sends in flight to one organization at most, per worker. */
  readonly maxInflightPerRecipient: number;
  /** NOTIFY e-mails an unverified organization may cause per 24 hours. */
  readonly notifyDailyLimit: number;
  /** A NEW or RECEIVER_NOTIFIED transaction with no state change for this long expires (ms). */
  readonly pendingExpiryMs: number;
  /** HUB_ENDPOINT_DOWN_AFTER: an endpoint's circuit open this long gets its contact e-mailed, at most daily (ms). */
  readonly endpointDownAfterMs: number;
  /** The TRP bridge (SPEC §16); undefined when HUB_TRP_PORT is unset. */
  readonly trp: TrpConfig | undefined;
  /** PEM of the Ed25519 key that signs audit checkpoints (SPEC §14); undefined: derived from the master key. */
  readonly auditSigningKey: string | undefined;
  /** HUB_SESSION_IDLE: a signed-in session ends after this long without a request (ms; SPEC §17). */
  readonly sessionIdleMs: number;
  /** HUB_SESSION_MAX: a signed-in session ends this long after sign-in, however busy (ms). */
  readonly sessionMaxMs: number;
}

export interface TrpConfig {
  readonly port: number;
  /** The TRP listener's public base URL: travel addresses and callbacks point there. */
  readonly publicUrl: string;
  /** PEM: the hub's certificate (the listener's, and its client certificate toward peers), its key. */
  readonly cert: string;
  readonly key: string;
  /** PEM: authorities trusted for peers' client certificates, and beside the system's for their servers. */
  readonly ca: string | undefined;
  /** Require and verify peers' client certificates (false only for tests and demos). */
  readonly mtls: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const adminKey = str('HUB_ADMIN_KEY');
  if (adminKey !== undefined && !isUsableAdminKey(adminKey))
    throw new ConfigError(`HUB_ADMIN_KEY ${ADMIN_KEY_RULE}`);
  const masterKeyText = str('HUB_MASTER_KEY');
  const masterKeyFile = str('HUB_MASTER_KEY_FILE');
  let masterKey: Buffer | undefined;
  if (masterKeyText !== undefined) {
    if (masterKeyFile !== undefined) {
      throw new ConfigError('HUB_MASTER_KEY and HUB_MASTER_KEY_FILE are both set; set one of them');
    }
    masterKey = decodeMasterKey(masterKeyText);
    if (!masterKey) throw new ConfigError('HUB_MASTER_KEY must be base64 of 32 bytes');
  } else if (masterKeyFile !== undefined) {
    masterKey = readMasterKeyFile(masterKeyFile);
  }
  const previousMasterKeys = (str('HUB_MASTER_KEYS_PREVIOUS') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k, i) => {
      const key = decodeMasterKey(k);
      if (!key) throw new ConfigError(`HUB_MASTER_KEYS_PREVIOUS: entry ${i + 1} must be base64 of 32 bytes`);
      return key;
    });
  if (databaseUrl !== undefined && (adminKey === undefined || masterKey === undefined)) {
    throw new ConfigError(
      `${adminKey === undefined ? 'HUB_ADMIN_KEY' : 'HUB_MASTER_KEY'} is required when DATABASE_URL is set`,
    );
  }
  const smtpUrl = str('SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL such as smtp://user:pass@host:587');
  }
  const logLevel = str('HUB_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`HUB_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  let retrySchedule: number[];
  try {
    retrySchedule = parseRetrySchedule(str('HUB_RETRY_SCHEDULE') ?? '5s,30s,2m,10m,30m,1h,3h,6h,12h,24h');
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const sessionIdleMs = duration(str('HUB_SESSION_IDLE'), 'HUB_SESSION_IDLE', '30m');
  const sessionMaxMs = duration(str('HUB_SESSION_MAX'), 'HUB_SESSION_MAX', '12h');
  if (sessionIdleMs > 7 * 86_400_000) throw new ConfigError('HUB_SESSION_IDLE must be at most 7d');
  if (sessionMaxMs > 30 * 86_400_000) throw new ConfigError('HUB_SESSION_MAX must be at most 30d');
  const publicUrl = str('HUB_PUBLIC_URL');
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) {
    throw new ConfigError('HUB_PUBLIC_URL must be an absolute URL');
  }
  const operatorContact = str('HUB_OPERATOR_CONTACT');
  if (operatorContact !== undefined && !isContact(operatorContact)) {
    throw new ConfigError('HUB_OPERATOR_CONTACT must be an e-mail address or an http(s) URL');
  }

  return Object.freeze({
    port: integer(str('PORT'), 'PORT', 8080, 0, 65535),
    host: str('HOST') ?? '127.0.0.1',
    databaseUrl,
    dataDir: str('HUB_DATA_DIR') ?? './data',
    adminKey,
    masterKey,
    masterKeyFile: masterKey === undefined ? undefined : masterKeyFile,
    previousMasterKeys: Object.freeze(previousMasterKeys),
    retentionMs: duration(str('HUB_RETENTION'), 'HUB_RETENTION', '5y'),
    smtpUrl,
    allowPrivateEndpoints: boolean(str('HUB_ALLOW_PRIVATE_ENDPOINTS'), 'HUB_ALLOW_PRIVATE_ENDPOINTS', false),
    worker: boolean(str('HUB_WORKER'), 'HUB_WORKER', true),
    rateLimit: integer(str('HUB_RATE_LIMIT'), 'HUB_RATE_LIMIT', 100, 0, 1_000_000),
    logLevel,
    retrySchedule: Object.freeze(retrySchedule),
    assetTableFile: str('HUB_ASSET_TABLE'),
    rulesFile: str('HUB_RULES_FILE'),
    fxRatesFile: str('HUB_FX_RATES'),
    publicUrl,
    operatorContact,
    maxInflightPerRecipient: integer(
      str('HUB_MAX_INFLIGHT_PER_RECIPIENT'),
      'HUB_MAX_INFLIGHT_PER_RECIPIENT',
      DEFAULT_MAX_INFLIGHT_PER_RECIPIENT,
      1,
      10_000,
    ),
    notifyDailyLimit: integer(str('HUB_NOTIFY_DAILY_LIMIT'), 'HUB_NOTIFY_DAILY_LIMIT', 50, 0, 1_000_000),
    pendingExpiryMs: duration(str('HUB_PENDING_EXPIRY'), 'HUB_PENDING_EXPIRY', '30d'),
    endpointDownAfterMs: duration(str('HUB_ENDPOINT_DOWN_AFTER'), 'HUB_ENDPOINT_DOWN_AFTER', '1h'),
    trp: trpConfig(str),
    auditSigningKey: auditSigningKey(str('HUB_AUDIT_SIGNING_KEY')),
    sessionIdleMs,
    sessionMaxMs,
  });
}

/** HUB_MASTER_KEY_FILE: a file holding the base64 key (a secret mount, outside HUB_DATA_DIR). */
function readMasterKeyFile(file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `HUB_MASTER_KEY_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const key = decodeMasterKey(text.trim());
  if (!key) throw new ConfigError(`HUB_MASTER_KEY_FILE: ${file} must hold base64 of 32 bytes`);
  return key;
}

export function decodeMasterKey(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const key = Buffer.from(text, 'base64');
  return key.length === 32 ? key : undefined;
}

function integer(v: string | undefined, name: string, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  }
  return Number(v);
}

/** The TRP settings: all or nothing, checked at start (the files are read now, and must be PEM). */
function trpConfig(str: (name: string) => string | undefined): TrpConfig | undefined {
  const port = str('HUB_TRP_PORT');
  if (port === undefined) {
    for (const name of ['HUB_TRP_PUBLIC_URL', 'HUB_TRP_TLS_CERT', 'HUB_TRP_TLS_KEY', 'HUB_TRP_TLS_CA']) {
      if (str(name) !== undefined) throw new ConfigError(`${name} is set but HUB_TRP_PORT is not`);
    }
    return undefined;
  }
  const publicUrl = str('HUB_TRP_PUBLIC_URL');
  if (
    publicUrl === undefined ||
    !/^https:\/\/[^\s?#]+$/.test(publicUrl) ||
    !URL.canParse(publicUrl) ||
    new URL(publicUrl).pathname !== '/'
  ) {
    throw new ConfigError(
      'HUB_TRP_PUBLIC_URL must be the https:// URL (scheme, host and port; no path) at which peers reach the TRP listener',
    );
  }
  const pem = (name: string, label: RegExp, required: boolean): string | undefined => {
    const file = str(name);
    if (file === undefined) {
      if (required) throw new ConfigError(`${name} is required when HUB_TRP_PORT is set`);
      return undefined;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (!label.test(text))
      throw new ConfigError(`${name}: ${file} holds no PEM ${label.source.replace(/\\/g, '')}`);
    return text;
  };
  const mtls = boolean(str('HUB_TRP_MTLS'), 'HUB_TRP_MTLS', true);
  return Object.freeze({
    port: integer(port, 'HUB_TRP_PORT', 0, 0, 65535),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    cert: pem('HUB_TRP_TLS_CERT', /-----BEGIN CERTIFICATE-----/, true)!,
    key: pem('HUB_TRP_TLS_KEY', /-----BEGIN [A-Z ]*PRIVATE KEY-----/, true)!,
    ca: pem('HUB_TRP_TLS_CA', /-----BEGIN CERTIFICATE-----/, mtls),
    mtls,
  });
}

/** HUB_AUDIT_SIGNING_KEY: a PEM file holding an Ed25519 private key, read and checked at start. */
function auditSigningKey(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `HUB_AUDIT_SIGNING_KEY: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let type: string | undefined;
  try {
    type = createPrivateKey(text).asymmetricKeyType;
  } catch {
    type = undefined;
  }
  if (type !== 'ed25519') {
    throw new ConfigError(`HUB_AUDIT_SIGNING_KEY: ${file} holds no PEM Ed25519 private key`);
  }
  return text;
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  y: 365 * 86_400_000,
};

/** A duration such as `5y`, `30d`, `12h`, `90s` or `500ms` (a year is 365 days), in milliseconds (at least 1 s, at most 100 years). */
function duration(v: string | undefined, name: string, dflt: string): number {
  const match = /^(\d+)(ms|s|m|h|d|y)$/.exec(v ?? dflt);
  const ms = match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : Number.NaN;
  if (!(ms >= 1000 && ms <= 100 * 365 * 86_400_000)) {
    throw new ConfigError(
      `${name} must be a duration such as 30d, 12h or 90s (units ms, s, m, h, d, y), at least 1s`,
    );
  }
  return ms;
}

function boolean(v: string | undefined, name: string, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  const lower = v.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(`${name} must be true or false`);
}

/** What an operator key must be: what the hub can accept in `x-api-key` (auth takes ≤ 256 characters). */
export const ADMIN_KEY_RULE = 'must be 32 to 256 printable ASCII characters (spaces only between others)';

/** Printable ASCII; a space only inside, since HTTP drops the spaces around a header's value. */
export function isUsableAdminKey(key: string): boolean {
  return /^[\x21-\x7e][\x20-\x7e]{30,254}[\x21-\x7e]$/.test(key);
}

/** An e-mail address (one, no display name) or an absolute http(s) URL, printable on one line. */
function isContact(v: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(v)) return false;
  if (/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(v)) return v.length <= 254;
  return /^https?:\/\/\S+$/.test(v) && URL.canParse(v) && v.length <= 2048;
}
