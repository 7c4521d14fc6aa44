CREATE TABLE saved_views_kept (
    id INTEGER PRIMARY KEY NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    query TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, name)
);
INSERT INTO saved_views_kept (id, user_id, name, query, created_at, updated_at)
    SELECT id, user_id, name, query, created_at, updated_at FROM saved_views WHERE team_id IS NULL;
DROP TABLE saved_views;
ALTER TABLE saved_views_kept RENAME TO saved_views;
