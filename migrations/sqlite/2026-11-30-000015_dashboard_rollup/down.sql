DROP INDEX submissions_created_outcome;
DROP TRIGGER lead_daily_counts_delete;
DROP TRIGGER lead_daily_counts_update;
DROP TRIGGER lead_daily_counts_insert;
DROP TABLE lead_daily_counts;
