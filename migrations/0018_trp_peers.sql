-- TRP peers as recipients and as counterparties (SPEC §13, §16).
--
-- The worker's fairness (an in-flight cap and a circuit breaker per recipient) knows a TRP peer by
-- its host: the host of its transfers. A claim reads that host beside each TRP message, and a claim
-- for one peer's messages alone finds them through its transfers, with this index.
CREATE INDEX trp_transfers_peer_host_idx ON trp_transfers (peer_host);

-- The TRP VASPs this hub has talked to, or that the operator added, one row per host:
-- - what the peer's /identity said (name, LEI) and the certificate it last presented (subject and
--   SHA-256 fingerprint, upper-case hex with colons as Node shows it);
-- - `pinned`: the operator fixed the fingerprint; an inbound peer whose callback is on this host
--   must then present exactly that certificate, and that certificate may use this host even when
--   its DNS names do not list it (the operator's mapping of a host to a certificate);
-- - `blocked`: nothing goes to it and nothing from it is taken;
-- - `api_version`: the TRP version it speaks (learnt from a fallback, or set by the operator;
--   null: the hub's own); `amount_encoding`: how its amounts are written (null: TRP 3.2.1's).
CREATE TABLE trp_counterparties (
  id uuid PRIMARY KEY,
  host text NOT NULL,
  name text,
  lei text,
  certificate_subject text,
  certificate_fingerprint text,
  pinned boolean NOT NULL DEFAULT false,
  blocked boolean NOT NULL DEFAULT false,
  api_version text,
  amount_encoding text CHECK (amount_encoding IN ('whole-units-number', 'smallest-unit-string')),
  added_by text NOT NULL CHECK (added_by IN ('hub', 'operator')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT trp_counterparties_host_key UNIQUE (host)
);

-- The requests peers made to this hub's callbacks (a resolution, a confirmation). TRP lets a peer
-- choose a fresh request-identifier per request (TRISA's client does): the same identifier again
-- with the same body (by its SHA-256) gets the first answer again, and with another body 409.
CREATE TABLE trp_callback_requests (
  transaction_ref uuid NOT NULL REFERENCES trp_transfers (transaction_ref),
  request_identifier uuid NOT NULL,
  body_hash text NOT NULL,
  status integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (transaction_ref, request_identifier)
);

-- The TRP version a transfer speaks: inbound, the one the peer's inquiry used (the hub answers in
-- it); outbound, the one the peer accepted the inquiry in. Null: the hub's own (3.2.1).
ALTER TABLE trp_transfers ADD COLUMN api_version text;
