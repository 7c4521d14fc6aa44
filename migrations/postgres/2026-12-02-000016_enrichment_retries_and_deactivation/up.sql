-- What lies ahead for a lead whose enrichment waits (docs/jobs.md, "Enrichment retries"): the
-- next try, or when its retries gave up, and the last reason in words. Written with the retry job
-- and after each of its runs; read only for leads that are pending_retry or gave_up.
CREATE TABLE lead_enrichment_retries (
    lead_id BIGINT PRIMARY KEY NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
    next_try_at TIMESTAMP,
    gave_up_at TIMESTAMP,
    last_reason TEXT,
    updated_at TIMESTAMP NOT NULL
);

-- `leadhub user deactivate`: a deactivated person cannot sign in or use a key or token; their
-- leads, notes and webhooks stay with their teams (docs/operations.md).
ALTER TABLE users ADD COLUMN deactivated_at TIMESTAMP;
