-- A saved view may be kept for a team (`team_id`): every member of it sees the view, and its
-- admins save over it and delete it; `user_id` is then who saved it first. A name is one view a
-- person (their own views) and one view a team (`lead::saved_views`). SQLite cannot drop the
-- table's UNIQUE (user_id, name), so the table is built again with the two partial indexes.
CREATE TABLE saved_views_kept (
    id INTEGER PRIMARY KEY NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    query TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    team_id BIGINT REFERENCES teams(id)
);
INSERT INTO saved_views_kept (id, user_id, name, query, created_at, updated_at)
    SELECT id, user_id, name, query, created_at, updated_at FROM saved_views;
DROP TABLE saved_views;
ALTER TABLE saved_views_kept RENAME TO saved_views;
CREATE UNIQUE INDEX saved_views_of_person ON saved_views (user_id, name) WHERE team_id IS NULL;
CREATE UNIQUE INDEX saved_views_of_team ON saved_views (team_id, name) WHERE team_id IS NOT NULL;
