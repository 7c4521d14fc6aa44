-- Outgoing webhooks: a team's endpoints, and the outbox of deliveries written in the same
-- transaction as the event they tell of. The signing secret is stored usable: Standard Webhooks
-- signs with it (docs/webhooks.md).
CREATE TABLE webhook_endpoints (
    id BIGSERIAL PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT,
    is_active BOOLEAN NOT NULL DEFAULT TRUE,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX webhook_endpoints_team ON webhook_endpoints(team_id);

CREATE TABLE webhook_deliveries (
    id BIGSERIAL PRIMARY KEY,
    endpoint_id BIGINT NOT NULL REFERENCES webhook_endpoints(id),
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    subject TEXT,
    payload TEXT,
    occurred_at TIMESTAMP NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP,
    last_status INTEGER,
    last_error TEXT,
    delivered_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries(endpoint_id, event_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
