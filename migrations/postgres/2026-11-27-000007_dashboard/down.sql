DROP INDEX submissions_failed;
DROP INDEX leads_source_enrichment;
