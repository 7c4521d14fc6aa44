-- The live leads without a phone and those without an e-mail (`has_phone=false`,
-- `has_email=false`: who to skip-trace) are counted from these indexes alone instead of every
-- visible lead's phone or e-mail columns (an empty cell is stored as none). Only the team: the
-- page walks `leads_created` and stops after one (most leads of a permit scrape have neither), and
-- a narrow entry is what each such lead's insert pays.
CREATE INDEX leads_without_phone ON leads(team_id)
WHERE primary_phone IS NULL AND phone_2 IS NULL AND phone_3 IS NULL AND phone_4 IS NULL AND phone_5 IS NULL
    AND archived_at IS NULL AND merged_into_id IS NULL;
CREATE INDEX leads_without_email ON leads(team_id)
WHERE email_1 IS NULL AND email_2 IS NULL AND email_3 IS NULL AND archived_at IS NULL AND merged_into_id IS NULL;
