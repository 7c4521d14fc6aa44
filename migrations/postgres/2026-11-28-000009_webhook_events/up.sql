-- Webhook events not yet fanned out to their endpoints' deliveries: one row per transaction
-- that emitted events for a listening team, written in that transaction. The delivery worker
-- turns a row into `webhook_deliveries` rows and deletes it, in one transaction of its own.
CREATE TABLE webhook_events (
    id BIGSERIAL PRIMARY KEY,
    events TEXT NOT NULL,
    occurred_at TIMESTAMP NOT NULL
);
