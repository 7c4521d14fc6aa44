DELETE FROM saved_views WHERE team_id IS NOT NULL;
DROP INDEX saved_views_of_team;
DROP INDEX saved_views_of_person;
ALTER TABLE saved_views DROP COLUMN team_id;
ALTER TABLE saved_views ADD CONSTRAINT saved_views_user_id_name_key UNIQUE (user_id, name);
