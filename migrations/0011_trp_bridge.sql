-- The TRP bridge (SPEC §16): members reach Travel Rule Protocol VASPs outside the hub, and those
-- reach members. A TRP peer is no directory organization: an inbound transfer has no originator
-- organization (its identity is in `trp_transfers`), an outbound one no beneficiary organization;
-- and the payment address of a TRP transfer is known only once the beneficiary approves.
ALTER TABLE transactions ALTER COLUMN originator_id DROP NOT NULL;
ALTER TABLE transactions ALTER COLUMN destination_address DROP NOT NULL;

-- Travel addresses a member mints for its customers: the address encodes
-- {HUB_TRP_PUBLIC_URL}/ta/{token}?t=i, and an inquiry to that path reaches the member.
CREATE TABLE travel_addresses (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  token text NOT NULL,
  travel_address text NOT NULL,
  url text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  CONSTRAINT travel_addresses_token_key UNIQUE (token)
);
CREATE INDEX travel_addresses_organization_idx ON travel_addresses (organization_id, created_at DESC);

-- One TRP transfer per TRP transaction: the peer, the request-identifier kept on every message of
-- the transfer, the callbacks each side gave, and (inbound) the answer given to the inquiry, so
-- that a repeated request-identifier from the same peer replays it.
CREATE TABLE trp_transfers (
  transaction_ref uuid PRIMARY KEY REFERENCES transactions (ref),
  inbound boolean NOT NULL,
  request_identifier uuid NOT NULL,
  -- outbound: where the inquiry goes; inbound: the travel address's URL on this hub
  inquiry_url text NOT NULL,
  travel_address text,
  -- the SHA-256 (hex) of the token in this hub's callback URL for the transfer (resolution or
  -- confirmation); the token itself is derived from the master key when a message needs it
  callback_hash text NOT NULL,
  -- the peer's callback: inbound, where the resolution goes; outbound, where the confirmation goes
  peer_callback text,
  peer_fingerprint text,
  peer_subject text,
  peer_name text,
  peer_lei text,
  peer_host text NOT NULL,
  inquiry_status integer,
  inquiry_answer jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT trp_transfers_callback_hash_key UNIQUE (callback_hash)
);
CREATE UNIQUE INDEX trp_transfers_inbound_request_idx ON trp_transfers (peer_fingerprint, request_identifier)
  WHERE inbound;

-- TRP messages the hub owes a peer go through the outbox like webhooks and e-mails.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_channel_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_channel_check CHECK (channel IN ('webhook', 'email', 'trp'));
ALTER TABLE deliveries DROP CONSTRAINT deliveries_recipient_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_recipient_check CHECK (
  (channel = 'webhook' AND organization_id IS NOT NULL) OR (channel = 'email' AND email_to IS NOT NULL)
  OR (channel = 'trp' AND transaction_ref IS NOT NULL)
);
