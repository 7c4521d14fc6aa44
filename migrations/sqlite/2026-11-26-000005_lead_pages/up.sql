-- A lead's submission history (the lead page) reads submissions by their lead; the lead pages
-- and the export filter by enrichment status like the other exact filters.
CREATE INDEX submissions_result_lead ON submissions(result_lead_id, created_at);
CREATE INDEX leads_enrichment_status_created ON leads(enrichment_status, created_at);
