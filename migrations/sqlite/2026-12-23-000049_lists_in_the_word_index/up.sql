-- The lists of leads by a tag, without a tag, and without a phone or an e-mail (`tag=`,
-- `without_tag=`, `has_phone=`, `has_email=`: a storm's leads, who to skip-trace) are answered by
-- the word index like the text filters: a lead's `visibility` entry carries `hasphone` or
-- `nophone`, `hasemail` or `noemail` (an empty cell is stored as none) and `g` + each tag in hex
-- (one token whatever the tag's characters; a column that is no JSON, which only a hand's write
-- could leave, gives none rather than failing the lead's writes). A change of the tags writes
-- the entry again like a change of the other columns; every entry is written again here
-- (about 8 s a million leads).
DROP VIEW lead_search_rows;
CREATE VIEW lead_search_rows AS SELECT id,
    coalesce(address, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(project_number, '') || ' ' || coalesce(email_1, '') || ' ' || coalesce(email_2, '') || ' ' || coalesce(email_3, '') || ' ' || coalesce(d1 || ' ' || substr(d1, -10) || ' ' || substr(d1, -7), '') || ' ' || coalesce(d2 || ' ' || substr(d2, -10) || ' ' || substr(d2, -7), '') || ' ' || coalesce(d3 || ' ' || substr(d3, -10) || ' ' || substr(d3, -7), '') || ' ' || coalesce(d4 || ' ' || substr(d4, -10) || ' ' || substr(d4, -7), '') || ' ' || coalesce(d5 || ' ' || substr(d5, -10) || ' ' || substr(d5, -7), '') AS words,
    'f0' || replace(trim(state), ' ', '_') AS state,
    'f1' || replace(trim(source), ' ', '_') AS source,
    'f2' || replace(trim(permit_status), ' ', '_') AS permit_status,
    'f3' || replace(trim(property_type), ' ', '_') AS property_type,
    'f4' || replace(trim(city), ' ', '_') AS city,
    'f5' || replace(trim(county), ' ', '_') AS county,
    'f6' || replace(trim(work_type), ' ', '_') AS work_type,
    'z' || substr(zip_code, 1, 5) AS zip,
    't' || coalesce(team_id, 0) || ' ' || CASE WHEN merged_into_id IS NOT NULL THEN 'vmerged' WHEN archived_at IS NOT NULL THEN 'varchived' ELSE 'vlive' END
        || CASE WHEN primary_phone IS NULL AND phone_2 IS NULL AND phone_3 IS NULL AND phone_4 IS NULL AND phone_5 IS NULL THEN ' nophone' ELSE ' hasphone' END
        || CASE WHEN email_1 IS NULL AND email_2 IS NULL AND email_3 IS NULL THEN ' noemail' ELSE ' hasemail' END
        || coalesce((SELECT ' ' || group_concat('g' || hex(value), ' ') FROM json_each(CASE WHEN json_valid(tags) THEN tags ELSE '[]' END)), '') AS visibility
FROM (SELECT *, replace(replace(replace(replace(replace(replace(primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d1, replace(replace(replace(replace(replace(replace(phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d2, replace(replace(replace(replace(replace(replace(phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d3, replace(replace(replace(replace(replace(replace(phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d4, replace(replace(replace(replace(replace(replace(phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d5 FROM leads);

DROP TRIGGER lead_search_update;
CREATE TRIGGER lead_search_update AFTER UPDATE OF address, first_name, last_name, project_number, email_1, email_2, email_3, primary_phone, phone_2, phone_3, phone_4, phone_5, state, source, permit_status, property_type, city, county, work_type, zip_code, team_id, archived_at, merged_into_id, tags ON leads
WHEN old.address IS NOT new.address OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name OR old.project_number IS NOT new.project_number OR old.email_1 IS NOT new.email_1 OR old.email_2 IS NOT new.email_2 OR old.email_3 IS NOT new.email_3 OR old.primary_phone IS NOT new.primary_phone OR old.phone_2 IS NOT new.phone_2 OR old.phone_3 IS NOT new.phone_3 OR old.phone_4 IS NOT new.phone_4 OR old.phone_5 IS NOT new.phone_5 OR old.state IS NOT new.state OR old.source IS NOT new.source OR old.permit_status IS NOT new.permit_status OR old.property_type IS NOT new.property_type OR old.city IS NOT new.city OR old.county IS NOT new.county OR old.work_type IS NOT new.work_type OR old.zip_code IS NOT new.zip_code OR old.team_id IS NOT new.team_id OR old.archived_at IS NOT new.archived_at OR old.merged_into_id IS NOT new.merged_into_id OR old.tags IS NOT new.tags BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
    INSERT INTO lead_search(rowid, words, state, source, permit_status, property_type, city, county, work_type, zip, visibility) SELECT * FROM lead_search_rows WHERE id = new.id;
END;

INSERT INTO lead_search(lead_search) VALUES ('delete-all');
INSERT INTO lead_search(rowid, words, state, source, permit_status, property_type, city, county, work_type, zip, visibility) SELECT * FROM lead_search_rows;
