-- Which browser upload a batch of submissions came from (issue 27): `/leads?upload={id}` lists the
-- leads an upload created or updated. Null for the API's batches and the CLI's imports.
ALTER TABLE batches ADD COLUMN upload_id BIGINT REFERENCES uploads(id);

-- The filter reads an upload's batches, then their submissions by `submissions_batch`: only the
-- few batches of uploads are in this index.
CREATE INDEX batches_upload ON batches(upload_id) WHERE upload_id IS NOT NULL;
