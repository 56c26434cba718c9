-- Directory change notifications. Hub processes cache organizations, API-key look-ups and
-- webhook secrets in memory (every request needs them); any change to those tables sends
-- NOTIFY hub_directory at commit, and every process (its own included) drops its cache.
-- A short TTL in the cache bounds staleness should a notification ever be missed.

CREATE FUNCTION hub_notify_directory_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('hub_directory', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

CREATE TRIGGER organizations_changed AFTER INSERT OR UPDATE OR DELETE ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_directory_change();
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_directory_change();
CREATE TRIGGER webhook_secrets_changed AFTER INSERT OR UPDATE OR DELETE ON webhook_secrets
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_directory_change();
