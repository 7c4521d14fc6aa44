CREATE INDEX leads_position ON leads (latitude, longitude, team_id) WHERE latitude IS NOT NULL;
DROP INDEX leads_live_position;
