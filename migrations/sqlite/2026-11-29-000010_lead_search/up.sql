-- What people filter the lead list by (docs/search.md).
--
-- `source` is a slug, as in the seed's examples (`Permit Scrape` -> `permit_scrape`); the
-- submission keeps the value as sent. Rows stored before are rewritten the same way.
UPDATE leads SET source = trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(trim(source)), ' ', '_'), '-', '_'), '.', '_'), '/', '_'), '&', '_'), ',', '_'), '''', '_'), '(', '_'), ')', '_'), ':', '_'), '+', '_'), '#', '_'), ';', '_'), '	', '_'), '__', '_'), '__', '_'), '__', '_'), '__', '_'), '_') WHERE source IS NOT NULL;
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
CREATE INDEX leads_city_filter ON leads(lower(city), created_at, id, team_id);
CREATE INDEX leads_county_filter ON leads(lower(county), created_at, id, team_id);
CREATE INDEX leads_work_type_filter ON leads(lower(work_type), created_at, id, team_id);
CREATE INDEX leads_zip_filter ON leads(substr(zip_code, 1, 5), created_at, id, team_id);
CREATE INDEX leads_updated ON leads(updated_at, id);
CREATE INDEX leads_permit_date ON leads(permit_date, created_at, id);

-- `q`: a substring of the address, owner name, project number, e-mail, or of a phone's digits.
-- One trigram index (FTS5, contentless) over one text per lead, kept in step by triggers; the
-- parts are separated by a newline so no match runs across two of them.
CREATE VIRTUAL TABLE lead_search USING fts5(doc, tokenize = 'trigram', content = '', contentless_delete = 1);
CREATE TRIGGER lead_search_insert AFTER INSERT ON leads BEGIN
    INSERT INTO lead_search(rowid, doc) VALUES (new.id, coalesce(new.address, '') || char(10) || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '') || char(10) || coalesce(new.project_number, '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(new.email_1, '') || char(10) || coalesce(new.email_2, '') || char(10) || coalesce(new.email_3, ''));
END;
CREATE TRIGGER lead_search_update AFTER UPDATE OF address, first_name, last_name, project_number, primary_phone, phone_2, phone_3, phone_4, phone_5, email_1, email_2, email_3 ON leads
WHEN (coalesce(old.address, '') || char(10) || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, '') || char(10) || coalesce(old.project_number, '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(old.primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(old.phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(old.phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(old.phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(old.phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(old.email_1, '') || char(10) || coalesce(old.email_2, '') || char(10) || coalesce(old.email_3, '')) IS NOT (coalesce(new.address, '') || char(10) || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '') || char(10) || coalesce(new.project_number, '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(new.email_1, '') || char(10) || coalesce(new.email_2, '') || char(10) || coalesce(new.email_3, '')) BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
    INSERT INTO lead_search(rowid, doc) VALUES (new.id, coalesce(new.address, '') || char(10) || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '') || char(10) || coalesce(new.project_number, '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(new.phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(new.email_1, '') || char(10) || coalesce(new.email_2, '') || char(10) || coalesce(new.email_3, ''));
END;
CREATE TRIGGER lead_search_delete AFTER DELETE ON leads BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
END;
INSERT INTO lead_search(rowid, doc) SELECT id, coalesce(leads.address, '') || char(10) || coalesce(leads.first_name, '') || ' ' || coalesce(leads.last_name, '') || char(10) || coalesce(leads.project_number, '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(leads.primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(leads.phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(leads.phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(leads.phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(replace(replace(replace(replace(replace(replace(leads.phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', ''), '') || char(10) || coalesce(leads.email_1, '') || char(10) || coalesce(leads.email_2, '') || char(10) || coalesce(leads.email_3, '') FROM leads;
