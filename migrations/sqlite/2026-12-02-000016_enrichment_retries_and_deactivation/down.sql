ALTER TABLE users DROP COLUMN deactivated_at;
DROP TABLE lead_enrichment_retries;
