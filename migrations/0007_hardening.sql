-- Hardening (SPEC §13).
-- API keys get a scope: `full` (every right, as before) or `read` (GET requests only).
-- Organizations get an optional contact address, which hears of changes to where their data goes.
-- Operators are named and keyed like organizations (the key stored only as SHA-256, revocable);
-- HUB_ADMIN_KEY stays the bootstrap operator and is not in this table. A name is unique among
-- active operators, case-insensitively, so audit rows (`operator:<name>`) name one person.
-- Decline and cancel reasons (often naming a sanctioned person) are sealed at rest like personal
-- data: `sealed_reason` holds them, sealed under the master key with the transaction bound as
-- associated data. The data step 0008 seals the plaintext ones written before; 0009 drops the
-- plaintext columns.

ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'read'));

ALTER TABLE organizations ADD COLUMN contact_email text;

CREATE TABLE operators (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  prefix text NOT NULL,
  key_hash bytea NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CONSTRAINT operators_key_hash_key UNIQUE (key_hash)
);
CREATE UNIQUE INDEX operators_active_name_idx ON operators (lower(name)) WHERE revoked_at IS NULL;
-- Operator keys are cached like organization keys: every process drops its cache on a change.
CREATE TRIGGER operators_changed AFTER INSERT OR UPDATE OR DELETE ON operators
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_directory_change();

ALTER TABLE transactions ADD COLUMN sealed_reason bytea;
ALTER TABLE transaction_history ADD COLUMN sealed_reason bytea;

-- The first answer to a keyed command may quote a decline or cancel reason: it is kept sealed
-- too (`sealed_response`). Initiation records, written by the group commit, hold no reason and
-- stay in `response`.
ALTER TABLE idempotency_keys ALTER COLUMN response DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN sealed_response bytea;
