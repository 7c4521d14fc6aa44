DROP TABLE lead_activity;
DROP TABLE lead_notes;
DROP INDEX leads_assignee_status;
ALTER TABLE leads DROP COLUMN merged_into_id;
ALTER TABLE leads DROP COLUMN archived_at;
ALTER TABLE leads DROP COLUMN version;
ALTER TABLE leads DROP COLUMN assignee_id;
ALTER TABLE leads DROP COLUMN status;
