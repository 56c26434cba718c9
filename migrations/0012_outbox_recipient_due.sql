-- The due messages of one recipient, in due order. A worker claims for a recipient it has room
-- for again (its sends to it are ending) with this index alone, so the claim reads that
-- recipient's rows and no others: the due index, in due order across recipients, would read past
-- every due row of recipients the worker leaves out, such as the backlog of a receiver that hangs.
CREATE INDEX deliveries_recipient_due_idx ON deliveries (organization_id, next_attempt_at)
  WHERE status = 'PENDING';
