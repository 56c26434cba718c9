-- People, not machine keys (SPEC §17): named users per organization (and operator users, whose
-- organization_id is NULL), their invitations, browser sessions, TOTP second factors and
-- recovery codes, and the per-account sign-in throttle.
--
-- Nothing here is a secret in the clear:
-- - `password_hash` is an encoded scrypt hash (`scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64),
--   so the parameters can be raised later and old hashes still verify;
-- - `sealed_totp` is the TOTP secret sealed under the master key (envelope encryption, the user id
--   as context), so `rekey` re-seals it with the rest (src/keys/sealed.ts);
-- - invitation links, session ids, CSRF tokens and recovery codes carry 128 bits or more of entropy
--   and are kept only as their SHA-256, like API keys: a fast hash is safe at that entropy and a
--   look-up stays one index probe.
-- An e-mail address signs in one account at a time: unique among users not removed, ignoring case
-- (`email_key`). A removed user keeps its row (the audit names it) but never signs in again.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  organization_id uuid REFERENCES organizations (id),
  email text NOT NULL,
  email_key text NOT NULL,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'analyst', 'admin')),
  password_hash text NOT NULL,
  sealed_totp bytea,
  totp_enabled_at timestamptz,
  -- The last TOTP time step accepted: a code is good once (RFC 6238 §5.2).
  totp_last_step integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz,
  CONSTRAINT users_operator_roles CHECK (organization_id IS NOT NULL OR role IN ('viewer', 'admin'))
);
CREATE UNIQUE INDEX users_email_key ON users (email_key) WHERE removed_at IS NULL;
CREATE INDEX users_organization_idx ON users (organization_id);

-- An invitation is used up when accepted (`accepted_at`), and good until `expires_at` (7 days).
CREATE TABLE user_invitations (
  id uuid PRIMARY KEY,
  organization_id uuid REFERENCES organizations (id),
  email text NOT NULL,
  email_key text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'analyst', 'admin')),
  token_hash bytea NOT NULL,
  invited_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  user_id uuid REFERENCES users (id),
  revoked_at timestamptz,
  CONSTRAINT user_invitations_token_hash_key UNIQUE (token_hash)
);
CREATE INDEX user_invitations_organization_idx ON user_invitations (organization_id);

-- Ten single-use codes per enrolment; a new enrolment replaces them.
CREATE TABLE user_recovery_codes (
  user_id uuid NOT NULL REFERENCES users (id),
  code_hash bytea NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A session ends at the first of: sign-out or removal (`ended_at`), `expires_at` (absolute), or
-- no request for the idle timeout since `last_seen_at`. The hub's clock (the database's) decides.
CREATE TABLE user_sessions (
  id_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  csrf_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id) WHERE ended_at IS NULL;

-- Failed sign-ins per e-mail address, whether or not an account has it (so the throttle tells
-- nobody which addresses exist): after a few, each further failure blocks that address for a
-- delay that doubles, capped; a success, or a quiet spell, starts the count again.
CREATE TABLE sign_in_throttle (
  email_hash bytea PRIMARY KEY,
  failures integer NOT NULL,
  last_failure_at timestamptz NOT NULL,
  blocked_until timestamptz
);

-- An organization's people policy, set by its admin: whether everyone in it needs a second
-- factor. No row: the default (not required). Kept here, not in `organizations`, which the
-- directory owns.
CREATE TABLE people_policies (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id),
  require_totp boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- API keys name what they are for and, optionally, the person who answers for them.
ALTER TABLE api_keys ADD COLUMN label text;
ALTER TABLE api_keys ADD COLUMN owner_user_id uuid REFERENCES users (id);
