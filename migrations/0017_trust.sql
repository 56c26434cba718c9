-- Trust (SPEC §12, §13 amended), with the data step 0017_trust_operator_names (src/db/steps/).
-- Contact notices: a change of an organization's travelEndpoint, publicKey or contactEmail is
-- e-mailed to its contact, at most 10 such e-mails per organization per UTC day, so that no one
-- can use the hub to send mail in its name to any address at will. The organization's row counts
-- them: `contact_notices_sent` on `contact_notices_day` (a new day starts again from zero).
ALTER TABLE organizations ADD COLUMN contact_notices_day date;
ALTER TABLE organizations ADD COLUMN contact_notices_sent integer NOT NULL DEFAULT 0;
