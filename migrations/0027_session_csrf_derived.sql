-- A session's CSRF token is derived from its secret id (people/sessions.ts, csrfTokenOf), so the
-- hub checks it by deriving it again: the stored hash of the token is not needed.
ALTER TABLE user_sessions DROP COLUMN csrf_hash;
