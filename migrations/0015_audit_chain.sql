-- The audit log becomes a hash chain (SPEC §14). Each row gets `seq` (its place in the one
-- chain, 1, 2, 3, … without gaps), `prev_hash` (the hash of the row before, 64 zeros before the
-- first) and `hash` = SHA-256(prev_hash ‖ RFC 8785 JSON of the row), computed by the hub
-- (src/audit/chain.ts). Rows written before this migration are chained by data step
-- 0015_audit_links, in `id` order, in the same migration transaction; it then makes the three
-- columns NOT NULL.
--
-- The database keeps the chain append-only whoever writes to it: a trigger refuses UPDATE and
-- DELETE (per row) and TRUNCATE, and a trigger on INSERT refuses a row that does not extend the
-- head (seq = head + 1, prev_hash = head's hash). The insert trigger takes the advisory lock the
-- hub takes before it reads the head (key 7202615), so concurrent writers in several hub
-- processes queue there until the writer before them commits: one chain, never a fork. The
-- triggers stop mistakes and the hub's own code; the owner of the database can still disable
-- them, which is what the chain and the signed checkpoints held outside the hub reveal.
ALTER TABLE audit_events
  ADD COLUMN seq integer,
  ADD COLUMN prev_hash text,
  ADD COLUMN hash text;
CREATE UNIQUE INDEX audit_events_seq_idx ON audit_events (seq);
CREATE INDEX audit_events_actor_idx ON audit_events (actor, seq);
CREATE INDEX audit_events_action_idx ON audit_events (action, seq);

CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();

CREATE FUNCTION audit_events_extend_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head_seq integer;
  head_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(7202615);
  SELECT seq, hash INTO head_seq, head_hash FROM audit_events ORDER BY seq DESC LIMIT 1;
  IF NEW.seq IS DISTINCT FROM coalesce(head_seq, 0) + 1
     OR NEW.prev_hash IS DISTINCT FROM coalesce(head_hash, repeat('0', 64))
     OR NEW.hash IS NULL OR NEW.hash !~ '^[0-9a-f]{64}$' THEN
    RAISE EXCEPTION 'audit_events: row % does not extend the chain (head is %)', NEW.seq, coalesce(head_seq, 0)
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_extend_chain();
