CREATE TABLE follow_up_digest_days (
    day DATE PRIMARY KEY NOT NULL,
    queued_at TIMESTAMP NOT NULL
);

DROP TABLE follow_up_digest_hours;

ALTER TABLE users DROP COLUMN utc_offset_minutes;
