-- The leads near a place (`near=`): the box around the circle is a range on the latitude, then on
-- the longitude; the team is in the index too, so a member's list checks the box, the circle and
-- the team before reading a lead's row (half the time at a metro's density on SQLite). Leads
-- without coordinates are never near anything, so they are not indexed.
CREATE INDEX leads_position ON leads (latitude, longitude, team_id) WHERE latitude IS NOT NULL;
