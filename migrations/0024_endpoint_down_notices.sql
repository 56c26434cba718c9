-- Endpoint-down notices (issue 35): an organization's contact is e-mailed when the webhooks to its
-- travelEndpoint have failed long enough that the circuit breaker has been open for an hour, at most
-- once a day per organization. One row per organization says when the last notice went out (and
-- since when the endpoint was failing then); a conditional upsert on it decides which process sends,
-- so neither a restart nor several hub processes send a notice twice within the day.
CREATE TABLE endpoint_down_notices (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id),
  sent_at timestamptz NOT NULL,
  failing_since timestamptz NOT NULL
);
