-- The lead list's exact filters, each with the list's order, so that counting the matches
-- (the answer's `total`) and finding a page read the index rather than every lead row: the
-- soak run showed GET /api/v1/leads growing from 17 ms to 122 ms as the table grew to 100,000.
CREATE INDEX leads_state_created ON leads(state, created_at);
CREATE INDEX leads_city_created ON leads(city, created_at);
CREATE INDEX leads_source_created ON leads(source, created_at);
CREATE INDEX leads_property_type_created ON leads(property_type, created_at);
CREATE INDEX leads_permit_status_created ON leads(permit_status, created_at);
