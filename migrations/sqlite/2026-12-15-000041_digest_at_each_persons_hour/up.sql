-- Where the person's day begins, in minutes east of UTC, as their browser last said (the pages'
-- `leadhub_utc_offset` cookie); NULL: not known, their day is UTC's. Their e-mail of follow-ups
-- due goes at the digest hour of their day.
ALTER TABLE users ADD COLUMN utc_offset_minutes INTEGER;

-- An hour whose digest job was queued: the first process to insert the hour queues the job, in
-- the same transaction, so several processes queue it once. The job sends to each person whose
-- day has reached the digest hour and who has not had that day's e-mail.
CREATE TABLE follow_up_digest_hours (
    hour TIMESTAMP PRIMARY KEY NOT NULL,
    queued_at TIMESTAMP NOT NULL
);

DROP TABLE follow_up_digest_days;
