-- The transactional outbox. Every message the hub owes a participant (a webhook) or an
-- outside exchange (a NOTIFY e-mail) is a row here, written in the same database transaction
-- as the state change that causes it. `payload` never holds personal data: the worker adds
-- it at send time from the sealed transaction (BASIC's JWE, MAIN's confirmed-data).
-- A worker claims due rows with FOR UPDATE SKIP LOCKED and leases them by pushing
-- `next_attempt_at` forward; a crashed worker's lease runs out and another worker retries,
-- with the same `message_id` (the Standard Webhooks `webhook-id`), so receivers de-duplicate.
-- `seq` orders the messages of one transaction to one recipient: a later one waits while an
-- earlier one is still pending.

CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  seq integer GENERATED ALWAYS AS IDENTITY,
  message_id text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('webhook', 'email')),
  event text NOT NULL,
  organization_id uuid REFERENCES organizations (id),
  email_to text,
  transaction_ref uuid REFERENCES transactions (ref),
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  delivered_at timestamptz,
  CONSTRAINT deliveries_message_id_key UNIQUE (message_id),
  CONSTRAINT deliveries_recipient_check CHECK (
    (channel = 'webhook' AND organization_id IS NOT NULL) OR (channel = 'email' AND email_to IS NOT NULL)
  )
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX deliveries_recipient_idx ON deliveries (organization_id, created_at DESC, id);
CREATE INDEX deliveries_transaction_idx ON deliveries (transaction_ref, seq);

-- Every attempt, successful or not: what the receiver answered and how long it took.
CREATE TABLE delivery_attempts (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES deliveries (id),
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  status_code integer,
  latency_ms integer NOT NULL,
  error text
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, id);
