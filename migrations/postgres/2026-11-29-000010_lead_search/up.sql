-- What people filter the lead list by (docs/search.md).
--
-- `source` is a slug, as in the seed's examples (`Permit Scrape` -> `permit_scrape`); the
-- submission keeps the value as sent. Rows stored before are rewritten the same way.
UPDATE leads SET source = trim(BOTH '_' FROM regexp_replace(lower(source), '[^[:alnum:]]+', '_', 'g')) WHERE source IS NOT NULL;
UPDATE leads SET source = NULL WHERE source = '';

-- Text filters compare case-folded (`lower(city) = lower(?)`), so each index is on the folded
-- expression. Every filter index ends in the list's order (created_at, id) and team_id, so a
-- page is read in order and the visibility rule (unassigned or one's teams) is checked in the
-- index. The low-cardinality columns (state, source, permit status) also carry each other:
-- `state = ? AND source = ?` is then counted in one index without reading the lead rows.
DROP INDEX leads_state_created;
DROP INDEX leads_city_created;
DROP INDEX leads_source_created;
DROP INDEX leads_property_type_created;
DROP INDEX leads_permit_status_created;
CREATE INDEX leads_state_filter ON leads(state, created_at, id, team_id, source, lower(permit_status), property_type, enrichment_status);
CREATE INDEX leads_source_filter ON leads(source, created_at, id, team_id, state, lower(permit_status), property_type, enrichment_status);
CREATE INDEX leads_permit_status_filter ON leads(lower(permit_status), created_at, id, team_id, state, source, property_type, enrichment_status);
CREATE INDEX leads_property_type_filter ON leads(property_type, created_at, id, team_id);
CREATE INDEX leads_city_filter ON leads(lower(city) NULLS FIRST, created_at, id, team_id);
CREATE INDEX leads_county_filter ON leads(lower(county), created_at, id, team_id);
CREATE INDEX leads_work_type_filter ON leads(lower(work_type), created_at, id, team_id);
CREATE INDEX leads_zip_filter ON leads(substr(zip_code, 1, 5), created_at, id, team_id);
CREATE INDEX leads_updated ON leads(updated_at, id);
CREATE INDEX leads_permit_date ON leads(permit_date NULLS FIRST, created_at, id);

-- `q`: a substring of the address, owner name, project number, e-mail, or of a phone's digits,
-- found through a pg_trgm index on one lower-cased text per lead (an expression index, so it
-- is kept in step by every write). The parts are separated by a newline so no match runs
-- across two of them. pg_trgm is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
CREATE FUNCTION lead_search_doc(address text, first_name text, last_name text, project_number text, primary_phone text, phone_2 text, phone_3 text, phone_4 text, phone_5 text, email_1 text, email_2 text, email_3 text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower(coalesce(address, '') || E'\n' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || E'\n' || coalesce(project_number, '') || E'\n' || coalesce(regexp_replace(primary_phone, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_2, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_3, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_4, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_5, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(email_1, '') || E'\n' || coalesce(email_2, '') || E'\n' || coalesce(email_3, ''));
CREATE INDEX lead_search_trgm ON leads USING gin (lead_search_doc(address, first_name, last_name, project_number, primary_phone, phone_2, phone_3, phone_4, phone_5, email_1, email_2, email_3) public.gin_trgm_ops);
