-- The directory: organizations (VASPs), their API keys and their webhook signing secrets,
-- plus the operator audit log. API keys are stored only as a SHA-256 hash of the whole key
-- (keys carry 256 bits of entropy, so a fast hash is safe and keeps look-up one index probe);
-- `prefix` is the key's first characters, kept to tell keys apart in listings.
-- Webhook secrets must be usable for HMAC, so they cannot be hashed: they are sealed with
-- the master key (AES-256-GCM, organization id as associated data). During a rotation the
-- previous secret keeps signing until `expires_at`.

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  vasp_did text NOT NULL,
  travel_endpoint text,
  public_key text,
  organization_type text NOT NULL DEFAULT 'unverified'
    CHECK (organization_type IN ('unverified', 'verified')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT organizations_vasp_did_key UNIQUE (vasp_did)
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  prefix text NOT NULL,
  key_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_keys_organization_idx ON api_keys (organization_id);

CREATE TABLE webhook_secrets (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  sealed_secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz
);
CREATE INDEX webhook_secrets_organization_idx ON webhook_secrets (organization_id, created_at DESC);

-- Append-only record of operator and self-service changes to the directory, and of every
-- read of personal data. Never updated or deleted by the hub.
CREATE TABLE audit_events (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL,
  action text NOT NULL,
  subject_type text NOT NULL,
  subject_id text NOT NULL,
  details jsonb
);
CREATE INDEX audit_events_subject_idx ON audit_events (subject_type, subject_id, id);
