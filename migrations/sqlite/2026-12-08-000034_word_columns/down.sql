-- Back to 000033's one-column word index: its document is the same tokens in one column. The view stays (the
-- triggers read it); 000034's up replaces it.
DROP TRIGGER lead_search_insert;
DROP TRIGGER lead_search_update;
DROP TRIGGER lead_search_delete;
DROP TABLE lead_search;
CREATE VIRTUAL TABLE lead_search USING fts5(doc, tokenize = "unicode61 tokenchars '_'", content = '', contentless_delete = 1);
CREATE TRIGGER lead_search_insert AFTER INSERT ON leads BEGIN
    INSERT INTO lead_search(rowid, doc) SELECT id, coalesce(words, '') || ' ' || coalesce(state, '') || ' ' || coalesce(source, '') || ' ' || coalesce(permit_status, '') || ' ' || coalesce(property_type, '') || ' ' || coalesce(city, '') || ' ' || coalesce(county, '') || ' ' || coalesce(work_type, '') || ' ' || coalesce(zip, '') || ' ' || visibility FROM lead_search_rows WHERE id = new.id;
END;
CREATE TRIGGER lead_search_update AFTER UPDATE OF address, first_name, last_name, project_number, email_1, email_2, email_3, primary_phone, phone_2, phone_3, phone_4, phone_5, state, source, permit_status, property_type, city, county, work_type, zip_code, team_id, archived_at, merged_into_id ON leads
WHEN old.address IS NOT new.address OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name OR old.project_number IS NOT new.project_number OR old.email_1 IS NOT new.email_1 OR old.email_2 IS NOT new.email_2 OR old.email_3 IS NOT new.email_3 OR old.primary_phone IS NOT new.primary_phone OR old.phone_2 IS NOT new.phone_2 OR old.phone_3 IS NOT new.phone_3 OR old.phone_4 IS NOT new.phone_4 OR old.phone_5 IS NOT new.phone_5 OR old.state IS NOT new.state OR old.source IS NOT new.source OR old.permit_status IS NOT new.permit_status OR old.property_type IS NOT new.property_type OR old.city IS NOT new.city OR old.county IS NOT new.county OR old.work_type IS NOT new.work_type OR old.zip_code IS NOT new.zip_code OR old.team_id IS NOT new.team_id OR old.archived_at IS NOT new.archived_at OR old.merged_into_id IS NOT new.merged_into_id BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
    INSERT INTO lead_search(rowid, doc) SELECT id, coalesce(words, '') || ' ' || coalesce(state, '') || ' ' || coalesce(source, '') || ' ' || coalesce(permit_status, '') || ' ' || coalesce(property_type, '') || ' ' || coalesce(city, '') || ' ' || coalesce(county, '') || ' ' || coalesce(work_type, '') || ' ' || coalesce(zip, '') || ' ' || visibility FROM lead_search_rows WHERE id = new.id;
END;
CREATE TRIGGER lead_search_delete AFTER DELETE ON leads BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
END;
INSERT INTO lead_search(rowid, doc) SELECT id, coalesce(words, '') || ' ' || coalesce(state, '') || ' ' || coalesce(source, '') || ' ' || coalesce(permit_status, '') || ' ' || coalesce(property_type, '') || ' ' || coalesce(city, '') || ' ' || coalesce(county, '') || ' ' || coalesce(work_type, '') || ' ' || coalesce(zip, '') || ' ' || visibility FROM lead_search_rows;
