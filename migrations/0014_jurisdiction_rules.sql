-- Jurisdiction rules and self-hosted wallets (SPEC §15).
-- Organizations get the country whose travel rule binds them (`jurisdiction`, ISO 3166-1 alpha-2)
-- and their Legal Entity Identifier (`lei`, ISO 17442). Both are optional: an organization without
-- a jurisdiction brings no rules to a transfer, so existing members keep v1 behaviour until the
-- operator or they themselves set one. The service checks the formats (the LEI's check digits need
-- code); the CHECKs here only keep the columns' shape. The directory filters by both.

ALTER TABLE organizations ADD COLUMN jurisdiction text CHECK (jurisdiction ~ '^[A-Z]{2}$');
ALTER TABLE organizations ADD COLUMN lei text CHECK (lei ~ '^[0-9A-Z]{18}[0-9]{2}$');
CREATE INDEX organizations_jurisdiction_idx ON organizations (jurisdiction) WHERE jurisdiction IS NOT NULL;
CREATE INDEX organizations_lei_idx ON organizations (lei) WHERE lei IS NOT NULL;
