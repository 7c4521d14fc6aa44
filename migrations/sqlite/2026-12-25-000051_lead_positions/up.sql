-- The leads near a place (`near=`): the box around the circle is a range on the latitude, then on
-- the longitude. Leads without coordinates are never near anything, so they are not indexed.
CREATE INDEX leads_position ON leads (latitude, longitude) WHERE latitude IS NOT NULL;
