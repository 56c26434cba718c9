-- Retention and erasure, and stable link keys (SPEC §14). A transaction's personal data and sealed reasons are destroyed
-- once its last state change is older than HUB_RETENTION, or at once by an operator: the sealed
-- blobs (each holds its own wrapped data key) become NULL and `pii_erased_at` says when. The
-- metadata and the history stay. The partial index serves the worker's retention sweep, which only
-- ever looks at transactions not erased yet, oldest state change first.
ALTER TABLE transactions ALTER COLUMN sealed_pii DROP NOT NULL;
ALTER TABLE transactions ADD COLUMN pii_erased_at timestamptz;
CREATE INDEX transactions_retention_idx ON transactions (state_changed_at) WHERE pii_erased_at IS NULL;

-- Keys the hub derives links from, sealed under the master key like everything else, so that a
-- rotation of the master key (rekey re-seals them) leaves every link token the hub composes the same.
CREATE TABLE hub_keys (
  name text PRIMARY KEY,
  sealed_key bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
