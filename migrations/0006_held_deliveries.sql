-- Messages of one transaction to one recipient go out in order (SPEC §8), a FAILED one
-- included: a later message waits until the earlier one is redelivered and delivered. Such a
-- waiting message is HELD rather than PENDING, so it stays out of the claim's due index (which
-- every claim scans) however long the failed one stays failed. Redelivering the FAILED message
-- makes the ones it held PENDING again.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
  CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'HELD'));
-- Held messages are few; this serves counting them (queue depth) and releasing them.
CREATE INDEX deliveries_held_idx ON deliveries (transaction_ref, seq) WHERE status = 'HELD';

UPDATE deliveries d SET status = 'HELD'
 WHERE d.status = 'PENDING'
   AND EXISTS (
     SELECT 1 FROM deliveries f
      WHERE f.transaction_ref = d.transaction_ref AND f.seq < d.seq AND f.status = 'FAILED'
        AND f.channel = d.channel
        AND f.organization_id IS NOT DISTINCT FROM d.organization_id
        AND f.email_to IS NOT DISTINCT FROM d.email_to);
