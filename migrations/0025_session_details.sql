-- What a person sees of their own sessions (SPEC §17, "My account"): each session gets a public id
-- to name it by (the row's key is the hash of the secret cookie value, which never leaves the
-- hub), and the browser and client address it was opened from, so a person can tell their laptop
-- from a session they do not recognise and end it. Sessions opened before this have neither.
ALTER TABLE user_sessions ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE user_sessions ADD COLUMN user_agent text;
ALTER TABLE user_sessions ADD COLUMN client_address text;
CREATE UNIQUE INDEX user_sessions_public_id ON user_sessions (public_id);
