/**
 * The shapes the delivery stages share. A message keeps one type from the command that queues it
 * (OutboxMessage, events.ts) to the attempt that records it: a worker holds it as a LeasedMessage,
 * which adds only the outbox row's identity and the lease it is held under.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { OutboxMessage, TrpMessage } from './events.js';

export type { OutboxMessage } from './events.js';

/** An outbox row a worker holds: its message, its ids, and the lease it holds the row under. */
export interface LeasedMessage {
  /** The row's id (the delivery id of the API). */
  id: string;
  /** The `webhook-id` (and e-mail Message-ID): the same on every attempt. */
  messageId: string;
  message: OutboxMessage;
  /** Attempts made before this one. */
  attempts: number;
  /**
   * The lease token: the row's `next_attempt_at` as set when the worker took it, in PostgreSQL's
   * text form (microseconds and offset), handed back as it came so that it compares exactly.
   */
  lease: string;
  /** A TRP message's peer host (its transfer's), by which the worker's fairness knows the peer. */
  trpHost?: string | null;
}

/** What one attempt (an HTTP POST or an SMTP submission) came to. */
export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The receiver's Retry-After header, if it sent one. */
  retryAfter?: string;
  /** What a TRP peer answered, parsed (an inquiry's answer decides the transfer's next state). */
  answer?: unknown;
}

/** Sends the outbox's TRP messages (the TRP bridge, src/trp/). */
export interface TrpSender {
  send(message: TrpMessage, messageId: string): Promise<SendResult>;
  /** Ends every send in flight now (the worker stops): each fails, and is retried later. */
  abortAll(): Promise<void>;
}

export type WorkerLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;
