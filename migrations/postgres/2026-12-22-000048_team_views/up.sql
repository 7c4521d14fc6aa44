-- A saved view may be kept for a team (`team_id`): every member of it sees the view, and its
-- admins save over it and delete it; `user_id` is then who saved it first. A name is one view a
-- person (their own views) and one view a team (`lead::saved_views`).
ALTER TABLE saved_views ADD COLUMN team_id BIGINT REFERENCES teams(id);
ALTER TABLE saved_views DROP CONSTRAINT saved_views_user_id_name_key;
CREATE UNIQUE INDEX saved_views_of_person ON saved_views (user_id, name) WHERE team_id IS NULL;
CREATE UNIQUE INDEX saved_views_of_team ON saved_views (team_id, name) WHERE team_id IS NOT NULL;
