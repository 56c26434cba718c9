-- The plaintext decline reasons were sealed into `sealed_reason` by the data step 0008: drop them.
ALTER TABLE transactions DROP COLUMN decline_reason;
ALTER TABLE transaction_history DROP COLUMN reason;
