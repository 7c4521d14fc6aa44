ALTER TABLE uploads DROP COLUMN summary;
ALTER TABLE uploads DROP COLUMN warnings;
