-- Each party's own review of a transaction (SPEC §17 Review): a state, an assignee and notes, one
-- review per transaction and organization. The two parties' reviews never meet: every read and
-- write names the caller's organization, and nothing joins one side's row to the other's.
--
-- `transaction_reviews` holds the current state; a transaction without a row reads as `open`, so
-- nothing is written until someone acts. `assignee_user_id` names a user of the same organization
-- (checked by the service; a removed user keeps its row, so the name stays readable).
--
-- `review_notes` is append-only working text. Notes may name people, so the text is sealed under
-- the master key like decline reasons, bound to the transaction and the organization as context
-- (listed in src/keys/sealed.ts, so `rekey` re-seals it), and erased (NULL) with the transaction's
-- personal data (SPEC §14 retention, erase-pii): who wrote a note and when stay. `author` is the
-- audit actor (`user:<id>` or `org:<id>`); `author_user_id` is set for a person, to show its name.
CREATE TABLE transaction_reviews (
  transaction_ref uuid NOT NULL REFERENCES transactions (ref),
  organization_id uuid NOT NULL REFERENCES organizations (id),
  state text NOT NULL CHECK (state IN ('open', 'in_review', 'cleared', 'escalated')),
  assignee_user_id uuid REFERENCES users (id),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (transaction_ref, organization_id)
);

-- The queue and the `review` list filter look reviews up by organization and state.
CREATE INDEX transaction_reviews_by_org_state ON transaction_reviews (organization_id, state);

CREATE TABLE review_notes (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_ref uuid NOT NULL,
  organization_id uuid NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  author text NOT NULL,
  author_user_id uuid REFERENCES users (id),
  sealed_text bytea,
  FOREIGN KEY (transaction_ref, organization_id) REFERENCES transaction_reviews (transaction_ref, organization_id)
);

CREATE INDEX review_notes_by_review ON review_notes (transaction_ref, organization_id, id);
