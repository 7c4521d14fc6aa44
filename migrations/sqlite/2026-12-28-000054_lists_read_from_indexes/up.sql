-- The leads near a place (`near=`) counted and put in order from this index alone: it holds the
-- live leads with coordinates (those a list shows), and what the list's visibility and its order
-- read besides the position. The lead rows in the circle are never read; only the page's are
-- (docs/search.md, "Near a place"). `merged_into_id` and `archived_at` are NULL in every entry;
-- they are columns too because SQLite counts a partial index as covering only when it holds
-- every column the query names. Replaces `leads_position`, which held every lead with
-- coordinates and made each one in the box a row read (five miles at a metro's density: 90,000
-- rows, ~150 ms).
CREATE INDEX leads_live_position
    ON leads (latitude, longitude, team_id, created_at, merged_into_id, archived_at)
    WHERE latitude IS NOT NULL AND merged_into_id IS NULL AND archived_at IS NULL;
DROP INDEX leads_position;

-- Which live leads a person may see, by id, in an index of its own (as PostgreSQL's
-- `leads_visible`): the tags page counts each tagged lead (`lead_tags` joined to the leads) and
-- looked each one's team up in its row, a random read of a wide row a lead (50,000 tagged
-- leads: ~100 ms); here a lookup reads a few bytes. Partial, so a lead not found here is
-- archived or merged away; the two columns are there for the covering rule above.
CREATE INDEX leads_live_team ON leads (id, team_id, merged_into_id, archived_at)
    WHERE merged_into_id IS NULL AND archived_at IS NULL;
