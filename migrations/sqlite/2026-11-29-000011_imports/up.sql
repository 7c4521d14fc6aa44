-- An import's warnings (cells dropped or flagged in rows that were imported) and its summary
-- for the upload page: the encoding read, the column mapping, the ignored columns and the
-- most frequent reasons, as JSON.
ALTER TABLE uploads ADD COLUMN warnings BIGINT NOT NULL DEFAULT 0;
ALTER TABLE uploads ADD COLUMN summary TEXT;
