-- Nothing reads submissions by status alone (batch counts go through submissions_batch, open
-- submissions by id), while every insert and every outcome paid to keep this index.
DROP INDEX submissions_status;
