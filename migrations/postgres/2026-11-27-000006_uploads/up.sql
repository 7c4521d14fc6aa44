-- CSV files uploaded from the pages: the file's bytes are kept here (not in memory or on one
-- machine's disk) so the import job survives a restart and runs on any process; the reject
-- report is kept next to it for download.
CREATE TABLE uploads (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    file_name TEXT NOT NULL,
    options TEXT NOT NULL,
    content BYTEA NOT NULL,
    size BIGINT NOT NULL,
    status TEXT NOT NULL,
    bytes_done BIGINT NOT NULL DEFAULT 0,
    rows_read BIGINT NOT NULL DEFAULT 0,
    created BIGINT NOT NULL DEFAULT 0,
    updated BIGINT NOT NULL DEFAULT 0,
    skipped BIGINT NOT NULL DEFAULT 0,
    rejected BIGINT NOT NULL DEFAULT 0,
    failed BIGINT NOT NULL DEFAULT 0,
    error TEXT,
    report BYTEA,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX uploads_team ON uploads(team_id, created_at);
