-- Idempotency-Key records keep the first answer whatever it was: a command the state refused
-- (403, 404, 409, 422) is replayed as refused, as a success is replayed as succeeded, so a
-- retry never does later what the first request was refused. Records expire after 24 hours and
-- are deleted by age, which the index serves.
ALTER TABLE idempotency_keys ADD COLUMN failed boolean NOT NULL DEFAULT false;
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
