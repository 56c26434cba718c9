-- Single sign-on with OpenID Connect per organization (SPEC §17).
--
-- `oidc_configs`: one identity provider per organization, set by its admin. The client secret is
-- sealed under the master key with the organization id as its context (listed in
-- src/keys/sealed.ts, so `rekey` re-seals it); issuer and client id are not secrets.
--
-- `oidc_sign_ins`: a sign-in that has been started and not yet come back, keyed by the SHA-256
-- of its `state`. The browser holds a random binding value in a short-lived HttpOnly cookie; the
-- row keeps only its SHA-256, and the PKCE verifier and the nonce are derived from that value, so
-- nothing here lets a reader of the database finish someone's sign-in. A callback deletes its row
-- before it does anything else: a state works once (a replayed callback finds nothing), and only
-- in the browser that started it. Rows past `expires_at` are dropped by the next start.
CREATE TABLE oidc_configs (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id),
  issuer text NOT NULL,
  client_id text NOT NULL,
  sealed_client_secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oidc_sign_ins (
  state_hash bytea PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  binding_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX oidc_sign_ins_expires_idx ON oidc_sign_ins (expires_at);
