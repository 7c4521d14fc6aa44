-- The live leads without a phone (`has_phone=false`: who to skip-trace) are counted from this
-- index alone instead of every visible lead's five phone columns (an empty cell is stored as
-- none). Only the team: the page walks `leads_created` and stops after one (most leads of a
-- permit scrape have no phone), and a narrow entry is what each such lead's insert pays.
CREATE INDEX leads_without_phone ON leads(team_id)
WHERE primary_phone IS NULL AND phone_2 IS NULL AND phone_3 IS NULL AND phone_4 IS NULL AND phone_5 IS NULL
    AND archived_at IS NULL AND merged_into_id IS NULL;
