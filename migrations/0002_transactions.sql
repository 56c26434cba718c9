-- Transactions and their history. A row holds what the interface document's fields need to
-- answer reads and build webhooks; personal data (`pii`) is only ever stored sealed
-- (AES-256-GCM envelope, transaction ref as associated data) in `sealed_pii`.
-- `status` changes only through the state machine, by a conditional UPDATE in the same
-- database transaction as the `transaction_history` row and the outbox rows it causes.
-- `beneficiary_id` is the directory organization when there is one (always for MAIN/BASIC;
-- NOTIFY may name an exchange outside the directory, then only `beneficiary_vasp_id` is set).

CREATE TABLE transactions (
  ref uuid PRIMARY KEY,
  protocol text NOT NULL CHECK (protocol IN ('MAIN', 'BASIC', 'NOTIFY')),
  status text NOT NULL CHECK (status IN ('NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', 'DECLINED')),
  originator_id uuid NOT NULL REFERENCES organizations (id),
  originator_did text NOT NULL,
  beneficiary_id uuid REFERENCES organizations (id),
  beneficiary_vasp_id text,
  beneficiary_did text,
  asset text NOT NULL,
  asset_decimals integer NOT NULL,
  amount text NOT NULL,
  origin_address text,
  destination_address text NOT NULL,
  tx_hash text,
  notification_email text,
  sealed_pii bytea NOT NULL,
  decline_reason jsonb,
  -- millisecond precision: the keyset cursor carries created_at as an ISO string
  created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX transactions_originator_idx ON transactions (originator_id, created_at DESC, ref DESC);
CREATE INDEX transactions_beneficiary_idx ON transactions (beneficiary_id, created_at DESC, ref DESC);

-- Append-only: one row per state the transaction entered, with who caused it.
CREATE TABLE transaction_history (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_ref uuid NOT NULL REFERENCES transactions (ref),
  status text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor_id uuid,
  actor text NOT NULL,
  reason jsonb
);
CREATE INDEX transaction_history_ref_idx ON transaction_history (transaction_ref, id);

-- Idempotency-Key replay: the first successful answer to (organization, key) for 24 hours.
CREATE TABLE idempotency_keys (
  organization_id uuid NOT NULL,
  idempotency_key text NOT NULL,
  request_hash bytea NOT NULL,
  response jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, idempotency_key)
);
