DROP INDEX leads_follow_up;
ALTER TABLE leads DROP COLUMN follow_up_on;
