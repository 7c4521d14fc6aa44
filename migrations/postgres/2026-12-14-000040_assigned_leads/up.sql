-- The assigned leads' index also holds what a list checks of each (team, archive, merge): the
-- assigned leads are counted from it alone, so the unassigned ones (`assignee=none`) are the
-- rollup's count less those (docs/search.md "total").
DROP INDEX leads_assignee_status;
CREATE INDEX leads_assignee_status ON leads(assignee_id, status, team_id, archived_at, merged_into_id)
WHERE assignee_id IS NOT NULL;
