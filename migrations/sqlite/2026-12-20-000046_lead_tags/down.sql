DROP TABLE lead_tags;
ALTER TABLE leads DROP COLUMN tags;
