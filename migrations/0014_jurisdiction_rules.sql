-- Jurisdiction rules and self-hosted wallets (SPEC §15).
-- Organizations get the country whose travel rule binds them (`jurisdiction`, ISO 3166-1 alpha-2)
-- and their Legal Entity Identifier (`lei`, ISO 17442). Both are optional: an organization without
-- a jurisdiction brings no rules to a transfer, so existing members keep v1 behaviour until the
-- operator or they themselves set one. The service checks the formats (the LEI's check digits need
-- code); the CHECKs here only keep the columns' shape. The directory filters by both.

ALTER TABLE organizations ADD COLUMN jurisdiction text CHECK (jurisdiction ~ '^[A-Z]{2}$');
ALTER TABLE organizations ADD COLUMN lei text CHECK (lei ~ '^[0-9A-Z]{18}[0-9]{2}$');
CREATE INDEX organizations_jurisdiction_idx ON organizations (jurisdiction) WHERE jurisdiction IS NOT NULL;
CREATE INDEX organizations_lei_idx ON organizations (lei) WHERE lei IS NOT NULL;

-- Self-hosted wallet ownership proofs. A member records that its customer controls an address:
-- by a signature the hub verified (EIP-191 personal_sign, BIP-137, BIP-322 simple) or, marked as
-- such, by the customer's declaration (verified_at stays NULL). `address_key` is the form look-ups
-- compare: lower case for EVM addresses (they match case-insensitively), the address as given for
-- Bitcoin. The signed message may name the customer, so only its SHA-256 is kept; the member holds
-- the message. Proving an address again records a new row. A proof attached to an initiation is
-- linked to the transaction in transaction_wallet_proofs and shown to both parties.

CREATE TABLE wallet_proofs (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  chain text NOT NULL,
  address text NOT NULL,
  address_key text NOT NULL,
  method text NOT NULL CHECK (method IN ('EIP-191', 'BIP-137', 'BIP-322', 'CUSTOMER_DECLARATION')),
  message_sha256 bytea NOT NULL,
  signature text,
  verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((method = 'CUSTOMER_DECLARATION') = (signature IS NULL AND verified_at IS NULL))
);
CREATE INDEX wallet_proofs_lookup_idx ON wallet_proofs (organization_id, chain, address_key, created_at DESC);

CREATE TABLE transaction_wallet_proofs (
  transaction_ref uuid PRIMARY KEY REFERENCES transactions (ref),
  wallet_proof_id uuid NOT NULL REFERENCES wallet_proofs (id)
);

-- The rules an initiation was held to (no personal data: entries, sources, regimes), so both
-- parties see them with the transaction. One row per transaction that had any rules.
CREATE TABLE transaction_rules (
  transaction_ref uuid PRIMARY KEY REFERENCES transactions (ref),
  regime text NOT NULL CHECK (regime IN ('TRAVEL_RULE', 'BELOW_THRESHOLD')),
  rules jsonb NOT NULL
);
