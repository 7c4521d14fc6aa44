-- The day someone means to contact the lead next (docs/working-leads.md): a calendar date, no
-- time and no zone, set and cleared by a person. The "Follow-ups due" view lists the leads due
-- by a day, soonest first, from this index: only leads with a date are in it.
ALTER TABLE leads ADD COLUMN follow_up_on DATE;
CREATE INDEX leads_follow_up ON leads(follow_up_on, created_at, id, team_id, archived_at, merged_into_id) WHERE follow_up_on IS NOT NULL;
