-- Lifecycle and the NOTIFY sunrise path (SPEC §11, §12).
-- Transactions can end CANCELLED (by the originator) or EXPIRED (no progress for
-- HUB_PENDING_EXPIRY); `state_changed_at` is when the status last changed, which the expiry
-- sweep reads through its own index. A NOTIFY transaction whose beneficiary claimed it
-- (`claimed_at`) follows MAIN from then on. TRP joins the protocols (SPEC §16), in either direction.
ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
  CHECK (status IN ('NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', 'DECLINED', 'CANCELLED', 'EXPIRED'));
ALTER TABLE transactions DROP CONSTRAINT transactions_protocol_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_protocol_check
  CHECK (protocol IN ('MAIN', 'BASIC', 'NOTIFY', 'TRP'));
ALTER TABLE transactions ADD COLUMN claimed_at timestamptz;
-- TRP transactions run outward (a member pays a TRP VASP) or inward (a TRP VASP pays a member).
ALTER TABLE transactions ADD COLUMN inbound boolean NOT NULL DEFAULT false;
ALTER TABLE transactions ADD COLUMN state_changed_at timestamptz;
UPDATE transactions t SET state_changed_at =
  coalesce((SELECT max(h.at) FROM transaction_history h WHERE h.transaction_ref = t.ref), t.created_at);
ALTER TABLE transactions ALTER COLUMN state_changed_at SET NOT NULL;
ALTER TABLE transactions ALTER COLUMN state_changed_at SET DEFAULT clock_timestamp();
CREATE INDEX transactions_pending_idx ON transactions (state_changed_at)
  WHERE status IN ('NEW', 'RECEIVER_NOTIFIED');

-- A history row may name what happened when the status stayed (a claim: `beneficiary-joined`).
ALTER TABLE transaction_history ADD COLUMN event text;

-- Messages of a cancelled or expired transaction that were not sent yet are withdrawn, never sent.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
  CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'HELD', 'CANCELLED'));

-- The claim link of a NOTIFY transaction: only a hash of its token is stored; the token itself
-- is derived from the master key when the e-mail is composed. Single use.
CREATE TABLE claims (
  transaction_ref uuid PRIMARY KEY REFERENCES transactions (ref),
  token_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at timestamptz,
  used_for text CHECK (used_for IN ('application', 'attach')),
  CONSTRAINT claims_token_hash_key UNIQUE (token_hash)
);

-- An outside exchange's application to join, made through a claim link; the operator reviews it.
-- `notification_email` is the address the claim link was sent to (it counts as verified).
CREATE TABLE join_applications (
  id uuid PRIMARY KEY,
  transaction_ref uuid NOT NULL REFERENCES transactions (ref),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  name text NOT NULL,
  vasp_did text NOT NULL,
  travel_endpoint text,
  public_key text,
  contact_email text NOT NULL,
  notification_email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  decided_by text,
  reject_reason text,
  organization_id uuid REFERENCES organizations (id)
);
CREATE INDEX join_applications_status_idx ON join_applications (status, created_at);

-- The single-use link (24 h) that shows an approved applicant its first API key and webhook
-- secret once: they wait here sealed, and are deleted when shown or when the link expires.
CREATE TABLE credential_pickups (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  token_hash bytea NOT NULL,
  sealed_credentials bytea,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  CONSTRAINT credential_pickups_token_hash_key UNIQUE (token_hash)
);
