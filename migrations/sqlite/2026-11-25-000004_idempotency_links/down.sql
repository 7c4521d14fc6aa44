DROP INDEX submissions_idempotency_key;
DROP INDEX batches_idempotency_key;
ALTER TABLE submissions DROP COLUMN idempotency_key_id;
ALTER TABLE batches DROP COLUMN idempotency_key_id;
