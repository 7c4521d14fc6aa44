-- The leads without a phone (`has_phone=false`: who to skip-trace) are counted and paged from this
-- index alone instead of every visible lead's five phone columns (an empty cell is stored as none).
CREATE INDEX leads_without_phone ON leads(created_at, id, team_id, archived_at, merged_into_id)
WHERE primary_phone IS NULL AND phone_2 IS NULL AND phone_3 IS NULL AND phone_4 IS NULL AND phone_5 IS NULL;
