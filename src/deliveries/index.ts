/**
 * The delivery engine assembled: one sender (keep-alive connection pool), the optional SMTP
 * mailer, the worker, the metrics and the routes. buildApp creates it; `serve` and the `worker`
 * command start and stop the worker; closing the app closes the connection pools.
 */
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { HubApp } from '../http/types.js';
import { NotifyMailer } from './email.js';
import type { EmailLinks } from './email-texts.js';
import type { DeliveryHooks } from './hooks.js';
import { registerDeliveryMetrics } from './metrics.js';
import { Outbox } from './outbox.js';
import { type RecipientSource, WebhookPreparer } from './prepare.js';
import { adminDeliveryRoutes, deliveryRoutes } from './routes.js';
import { WebhookSender } from './sender.js';
import { DeliveryService } from './service.js';
import type { TrpSender, WorkerLog } from './types.js';
import { DeliveryWorker, type WorkerOptions } from './worker.js';

export type { DeliveryHooks } from './hooks.js';

export interface DeliveriesOptions {
  config: Config;
  db: Database;
  directory: RecipientSource;
  hooks: DeliveryHooks;
  registry: Registry;
  log: WorkerLog;
  /** Where an outside exchange can join the hub (NOTIFY e-mail): HUB_PUBLIC_URL or the listen URL. */
  links: () => EmailLinks;
  /** Sends the TRP messages (the TRP bridge), when HUB_TRP_PORT is set. */
  trp?: TrpSender | undefined;
  /** Worker tuning (tests). */
  worker?: Partial<
    Pick<
      WorkerOptions,
      'concurrency' | 'batchSize' | 'leaseMs' | 'pollMs' | 'stopTimeoutMs' | 'vacuumAfterRows'
    >
  >;
}

export interface Deliveries {
  /** The outbox's writer for statements of other domains, with this process's worker attached. */
  outbox: Outbox;
  worker: DeliveryWorker;
  service: DeliveryService;
  registerRoutes(app: HubApp): void;
  /** Stops the worker and closes the connection pools. */
  close(): Promise<void>;
}

export function createDeliveries(o: DeliveriesOptions): Deliveries {
  const allowPrivate = o.config.allowPrivateEndpoints;
  const sender = new WebhookSender({ allowPrivate });
  const mailer = o.config.smtpUrl ? new NotifyMailer(o.config.smtpUrl, { links: o.links }) : undefined;
  const preparer = new WebhookPreparer(o.directory, o.hooks, allowPrivate);
  const metrics = registerDeliveryMetrics(o.registry, o.db);
  const worker = new DeliveryWorker({
    db: o.db,
    preparer,
    sender,
    mailer,
    ...(o.trp ? { trp: o.trp } : {}),
    hooks: o.hooks,
    metrics,
    log: o.log,
    retrySchedule: o.config.retrySchedule,
    maxInflightPerRecipient: o.config.maxInflightPerRecipient,
    ...o.worker,
  });
  const outbox = new Outbox();
  outbox.attach(worker);
  const service = new DeliveryService(o.db, preparer, sender, mailer !== undefined);
  let closing: Promise<void> | undefined;
  return {
    outbox,
    worker,
    service,
    registerRoutes(app) {
      deliveryRoutes(app, service);
      adminDeliveryRoutes(app, service);
    },
    close() {
      closing ??= (async () => {
        await worker.stop();
        mailer?.close();
        await sender.close();
      })();
      return closing;
    },
  };
}
