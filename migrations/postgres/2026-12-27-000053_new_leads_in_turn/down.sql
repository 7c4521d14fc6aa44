ALTER TABLE team_members DROP COLUMN new_lead_turn;
ALTER TABLE team_members DROP COLUMN takes_new_leads;
