-- The leads near a place (`near=`) counted and put in order from this index alone: it holds the
-- live leads with coordinates (those a list shows), and what the list's visibility and its order
-- read besides the position. The lead rows in the circle are never read; only the page's are
-- (docs/search.md, "Near a place"). Replaces `leads_position`, which held every lead with
-- coordinates and made each one in the box a row read (five miles at a metro's density:
-- 90,000 rows, 300 ms).
CREATE INDEX leads_live_position ON leads (latitude, longitude) INCLUDE (team_id, created_at, id)
    WHERE latitude IS NOT NULL AND merged_into_id IS NULL AND archived_at IS NULL;
DROP INDEX leads_position;
