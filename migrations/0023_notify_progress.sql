-- NOTIFY progress for the originator, and claim links that outlive a rejected application
-- (SPEC §12, §17).
--
-- `claims.opened_at`: the first time the public claim page loaded the link's announcement. It is
-- written once (`WHERE opened_at IS NULL`); later loads only read, so whoever reloads the page,
-- a mail scanner or a bot, causes no further writes.
--
-- A claim link now stays usable while its transaction is open: a rejected application frees it
-- for a new one. At most one application per transaction may be pending or approved at a time;
-- the partial unique index holds that even against two applications that race. The second index
-- reads a transaction's applications, oldest first, for its progress and for the claim page.
-- `claims.used_at` / `used_for` keep meaning the link's last use; only `attach` ends it.
ALTER TABLE claims ADD COLUMN opened_at timestamptz;

CREATE UNIQUE INDEX join_applications_one_open_idx ON join_applications (transaction_ref)
  WHERE status IN ('pending', 'approved');
CREATE INDEX join_applications_transaction_idx ON join_applications (transaction_ref, created_at);
