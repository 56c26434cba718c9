-- Search over transactions (SPEC §17 `q`, customer names) and the indexes the list's filters need.
--
-- `transaction_name_tokens`: a keyed blind index of the customers' names. Each row is the first
-- 16 bytes of HMAC-SHA256(name-index key, token) for one normalised token (NFKD, diacritics
-- stripped, lower case, split on non-letters) of a natural or legal person's name on either side
-- of the transfer. No name is stored in clear: without the key (sealed in `hub_keys` under the
-- master key, src/transactions/name-index.ts) a row says nothing but "some token". The rows are
-- written in the statement that stores the transaction and deleted when its personal data is
-- erased (SPEC §14).
--
-- `transactions.names_indexed`: false for rows stored before this migration (and for any row a
-- writer stores without tokens); the hub indexes those in the background at start and sets it.
CREATE TABLE transaction_name_tokens (
  token bytea NOT NULL,
  transaction_ref uuid NOT NULL REFERENCES transactions (ref),
  PRIMARY KEY (token, transaction_ref)
);
CREATE INDEX transaction_name_tokens_ref_idx ON transaction_name_tokens (transaction_ref);

ALTER TABLE transactions ADD COLUMN names_indexed boolean NOT NULL DEFAULT false;
CREATE INDEX transactions_names_pending_idx ON transactions (ref) WHERE NOT names_indexed;

-- `q`: a short reference is a prefix of the reference's text; addresses and DIDs in any case.
CREATE INDEX transactions_ref_text_idx ON transactions ((ref::text) text_pattern_ops);
CREATE INDEX transactions_destination_idx ON transactions (lower(destination_address));
CREATE INDEX transactions_origin_idx ON transactions (lower(origin_address));
CREATE INDEX transactions_beneficiary_did_idx ON transactions (lower(beneficiary_did));
CREATE INDEX transactions_originator_did_idx ON transactions (lower(originator_did));
