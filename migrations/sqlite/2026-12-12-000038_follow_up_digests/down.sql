DROP TABLE follow_up_digests;
DROP TABLE follow_up_digest_days;
ALTER TABLE users DROP COLUMN follow_up_digest;
