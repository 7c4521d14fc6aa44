-- What a request holding an Idempotency-Key stored, written in the same transaction as the
-- batch or the single submission itself: a key is then either linked to what it stored or
-- linked to nothing (its request stored nothing), never stored-but-unknown.
ALTER TABLE batches ADD COLUMN idempotency_key_id BIGINT;
ALTER TABLE submissions ADD COLUMN idempotency_key_id BIGINT;
CREATE INDEX batches_idempotency_key ON batches (idempotency_key_id);
CREATE INDEX submissions_idempotency_key ON submissions (idempotency_key_id);
