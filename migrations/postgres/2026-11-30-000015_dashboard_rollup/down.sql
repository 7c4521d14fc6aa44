DROP INDEX submissions_created_outcome;
DROP TRIGGER lead_daily_counts_delete ON leads;
DROP TRIGGER lead_daily_counts_update ON leads;
DROP TRIGGER lead_daily_counts_insert ON leads;
DROP FUNCTION lead_daily_counts_apply();
DROP TABLE lead_daily_counts;
