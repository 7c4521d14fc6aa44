-- The e-mail of follow-ups due (docs/working-leads.md, "Follow-ups"): on for everyone until
-- they turn it off on their dashboard.
ALTER TABLE users ADD COLUMN follow_up_digest BOOLEAN NOT NULL DEFAULT 1;
-- A day whose digest job was queued: the first process to insert the day queues the job, in
-- the same transaction, so several processes queue it once.
CREATE TABLE follow_up_digest_days (
    day DATE PRIMARY KEY NOT NULL,
    queued_at TIMESTAMP NOT NULL
);
-- A person's digest of a day, written before the e-mail goes (and taken back if it fails), so a
-- retried job sends each person's at most once.
CREATE TABLE follow_up_digests (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    day DATE NOT NULL,
    sent_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, day)
);
