-- Who registered a webhook endpoint (issue 28): shown by the API; the endpoint belongs to the
-- team, so it keeps delivering when that person leaves the team (docs/webhooks.md).
ALTER TABLE webhook_endpoints ADD COLUMN created_by BIGINT REFERENCES users(id);

-- The worker claims each endpoint's due deliveries in turn (round-robin over teams and
-- endpoints), looking up the oldest due one of every active endpoint: one probe of this index each.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries(endpoint_id, status, next_attempt_at);
