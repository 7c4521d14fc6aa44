-- The lead list shows only live leads (not archived, not merged into another), so each filter
-- index carries archived_at and merged_into_id beside team_id: the visibility rule is checked
-- in the index. A folded filter's index also holds the column as written (city, county, work
-- type, permit status): PostgreSQL answers from an index alone only if it holds every column
-- the query names, and `lower(city)` names city. City carries the columns it is paired with
-- (state, source, permit status) as state, source and permit status carry each other, so the
-- count of a pair reads one index and no lead row, on both backends (docs/search.md).
DROP INDEX leads_state_filter;
DROP INDEX leads_source_filter;
DROP INDEX leads_permit_status_filter;
DROP INDEX leads_property_type_filter;
DROP INDEX leads_city_filter;
DROP INDEX leads_county_filter;
DROP INDEX leads_work_type_filter;
DROP INDEX leads_zip_filter;
CREATE INDEX leads_state_filter ON leads(state, created_at, id, team_id, archived_at, merged_into_id, source, lower(permit_status), property_type, enrichment_status, permit_status);
CREATE INDEX leads_source_filter ON leads(source, created_at, id, team_id, archived_at, merged_into_id, state, lower(permit_status), property_type, enrichment_status, permit_status);
CREATE INDEX leads_permit_status_filter ON leads(lower(permit_status), created_at, id, team_id, archived_at, merged_into_id, state, source, property_type, enrichment_status, permit_status);
CREATE INDEX leads_property_type_filter ON leads(property_type, created_at, id, team_id, archived_at, merged_into_id);
CREATE INDEX leads_city_filter ON leads(lower(city) NULLS FIRST, created_at, id, team_id, archived_at, merged_into_id, city, state, source, permit_status);
CREATE INDEX leads_county_filter ON leads(lower(county), created_at, id, team_id, archived_at, merged_into_id, county);
CREATE INDEX leads_work_type_filter ON leads(lower(work_type), created_at, id, team_id, archived_at, merged_into_id, work_type);
CREATE INDEX leads_zip_filter ON leads(substr(zip_code, 1, 5), created_at, id, team_id, archived_at, merged_into_id);

-- A lead found by id (`q`'s matches, an upload's leads) is checked for visibility, put in
-- order and matched against `state` from this narrow index instead of its wide row: a street
-- word matching 17,000 leads reads 17,000 short entries rather than 17,000 rows.
CREATE INDEX leads_visible ON leads(id, team_id, archived_at, merged_into_id, created_at, state);

-- `q`: the trigram index's candidates are confirmed against the lead's search text. Computed
-- from twelve columns (five regexp_replace calls) that costs ~2.5 µs a row, most of the time
-- of a street word's 17,000 matches; stored, it is a plain comparison. PostgreSQL keeps the
-- column in step with every write; it is PostgreSQL's own, as SQLite's FTS5 table is SQLite's,
-- so it is not in schema.rs.
DROP INDEX lead_search_trgm;
ALTER TABLE leads ADD COLUMN search_doc text GENERATED ALWAYS AS (lead_search_doc(address, first_name, last_name, project_number, primary_phone, phone_2, phone_3, phone_4, phone_5, email_1, email_2, email_3)) STORED;
CREATE INDEX lead_search_trgm ON leads USING gin (search_doc public.gin_trgm_ops);
