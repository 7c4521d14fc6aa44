-- A phone's digits in the word index are its number's, before `;ext=`: the digits of the whole
-- stored value made the "last 10" and "last 7" tokens of `+15125550100;ext=12` `100;ext=12` and
-- `;ext=12`, so `q=5125550100` or `q=555-0100` did not find it (PostgreSQL's substring did). The
-- extension's digits follow the number's tokens as a token of their own (`12`), so they still
-- find the lead, as on PostgreSQL, where they follow the number's digits in the searched text.
-- Only the entries of leads with an extension change; they are written again here (docs/search.md,
-- `q`). PostgreSQL has nothing to do: its search reads the stored text's substrings.
DROP VIEW lead_search_rows;
CREATE VIEW lead_search_rows AS SELECT id,
    coalesce(address, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(project_number, '') || ' ' || coalesce(email_1, '') || ' ' || coalesce(email_2, '') || ' ' || coalesce(email_3, '') || ' ' || coalesce(d1 || ' ' || substr(d1, -10) || ' ' || substr(d1, -7) || x1, '') || ' ' || coalesce(d2 || ' ' || substr(d2, -10) || ' ' || substr(d2, -7) || x2, '') || ' ' || coalesce(d3 || ' ' || substr(d3, -10) || ' ' || substr(d3, -7) || x3, '') || ' ' || coalesce(d4 || ' ' || substr(d4, -10) || ' ' || substr(d4, -7) || x4, '') || ' ' || coalesce(d5 || ' ' || substr(d5, -10) || ' ' || substr(d5, -7) || x5, '') AS words,
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
FROM (SELECT *, replace(replace(replace(replace(replace(replace(CASE WHEN instr(primary_phone, ';ext=') > 0 THEN substr(primary_phone, 1, instr(primary_phone, ';ext=') - 1) ELSE primary_phone END, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d1, replace(replace(replace(replace(replace(replace(CASE WHEN instr(phone_2, ';ext=') > 0 THEN substr(phone_2, 1, instr(phone_2, ';ext=') - 1) ELSE phone_2 END, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d2, replace(replace(replace(replace(replace(replace(CASE WHEN instr(phone_3, ';ext=') > 0 THEN substr(phone_3, 1, instr(phone_3, ';ext=') - 1) ELSE phone_3 END, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d3, replace(replace(replace(replace(replace(replace(CASE WHEN instr(phone_4, ';ext=') > 0 THEN substr(phone_4, 1, instr(phone_4, ';ext=') - 1) ELSE phone_4 END, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d4, replace(replace(replace(replace(replace(replace(CASE WHEN instr(phone_5, ';ext=') > 0 THEN substr(phone_5, 1, instr(phone_5, ';ext=') - 1) ELSE phone_5 END, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d5,
    CASE WHEN instr(primary_phone, ';ext=') > 0 THEN ' ' || substr(primary_phone, instr(primary_phone, ';ext=') + 5) ELSE '' END AS x1, CASE WHEN instr(phone_2, ';ext=') > 0 THEN ' ' || substr(phone_2, instr(phone_2, ';ext=') + 5) ELSE '' END AS x2, CASE WHEN instr(phone_3, ';ext=') > 0 THEN ' ' || substr(phone_3, instr(phone_3, ';ext=') + 5) ELSE '' END AS x3, CASE WHEN instr(phone_4, ';ext=') > 0 THEN ' ' || substr(phone_4, instr(phone_4, ';ext=') + 5) ELSE '' END AS x4, CASE WHEN instr(phone_5, ';ext=') > 0 THEN ' ' || substr(phone_5, instr(phone_5, ';ext=') + 5) ELSE '' END AS x5 FROM leads);

DELETE FROM lead_search WHERE rowid IN (SELECT id FROM leads WHERE primary_phone LIKE '%;ext=%' OR phone_2 LIKE '%;ext=%' OR phone_3 LIKE '%;ext=%' OR phone_4 LIKE '%;ext=%' OR phone_5 LIKE '%;ext=%');
INSERT INTO lead_search(rowid, words, state, source, permit_status, property_type, city, county, work_type, zip, visibility) SELECT * FROM lead_search_rows WHERE id IN (SELECT id FROM leads WHERE primary_phone LIKE '%;ext=%' OR phone_2 LIKE '%;ext=%' OR phone_3 LIKE '%;ext=%' OR phone_4 LIKE '%;ext=%' OR phone_5 LIKE '%;ext=%');
