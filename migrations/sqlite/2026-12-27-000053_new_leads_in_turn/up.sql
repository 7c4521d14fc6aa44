-- Who takes the team's new leads in turn (docs/working-leads.md "New leads in turn"): a lead the team's intake
-- creates without an owner goes to the taker whose last turn is oldest (never first), and that taker's turn
-- becomes the newest; the turn counts up within the team.
ALTER TABLE team_members ADD COLUMN takes_new_leads BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE team_members ADD COLUMN new_lead_turn BIGINT;
