-- A person's saved lists of leads ("Storm 2026, no phone"): a name and the list's filters as its
-- URL query, shown beside the list's own views. One name once a person; saving a name again
-- replaces its filters (`lead::saved_views`).
CREATE TABLE saved_views (
    id INTEGER PRIMARY KEY NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    query TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, name)
);
