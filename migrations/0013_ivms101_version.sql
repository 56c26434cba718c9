-- The IVMS101 version each organization receives personal data in (SPEC §18): `2020`, the
-- interface document's shape and v1's, unless the organization or the operator chooses
-- IVMS101.2023. Stored data is kept in one canonical form; the version is applied when a message
-- is written for the organization (confirmed-data, a received JWE, a /pii read).
ALTER TABLE organizations
  ADD COLUMN ivms101_version text NOT NULL DEFAULT '2020'
  CONSTRAINT organizations_ivms101_version_check CHECK (ivms101_version IN ('2020', '2023'));
