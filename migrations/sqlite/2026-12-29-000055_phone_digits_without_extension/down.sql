-- The view of migration 000049 (a phone's digits with its extension's), and the entries of the
-- leads with an extension written again by it.
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

DELETE FROM lead_search WHERE rowid IN (SELECT id FROM leads WHERE primary_phone LIKE '%;ext=%' OR phone_2 LIKE '%;ext=%' OR phone_3 LIKE '%;ext=%' OR phone_4 LIKE '%;ext=%' OR phone_5 LIKE '%;ext=%');
INSERT INTO lead_search(rowid, words, state, source, permit_status, property_type, city, county, work_type, zip, visibility) SELECT * FROM lead_search_rows WHERE id IN (SELECT id FROM leads WHERE primary_phone LIKE '%;ext=%' OR phone_2 LIKE '%;ext=%' OR phone_3 LIKE '%;ext=%' OR phone_4 LIKE '%;ext=%' OR phone_5 LIKE '%;ext=%');
