DROP INDEX batches_upload;
ALTER TABLE batches DROP COLUMN upload_id;
