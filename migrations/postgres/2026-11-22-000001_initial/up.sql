CREATE TABLE users (
    id BIGSERIAL PRIMARY KEY,
    user_id TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL UNIQUE,
    first_name TEXT,
    last_name TEXT,
    is_admin BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE api_keys (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    expires_at TIMESTAMP,
    revoked_at TIMESTAMP
);
CREATE INDEX api_keys_user_id ON api_keys(user_id);

-- Access and refresh tokens. A family is one sign-in: every refresh rotates within it, and
-- reuse of a retired refresh token revokes the whole family.
CREATE TABLE auth_tokens (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    kind TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    family_id TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    retired_at TIMESTAMP,
    revoked_at TIMESTAMP
);
CREATE INDEX auth_tokens_family ON auth_tokens(family_id);

CREATE TABLE sign_in_links (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP
);

CREATE TABLE teams (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT,
    is_active BOOLEAN NOT NULL DEFAULT TRUE,
    created_by BIGINT NOT NULL REFERENCES users(id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE team_members (
    id BIGSERIAL PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL,
    is_active BOOLEAN NOT NULL DEFAULT TRUE,
    joined_at TIMESTAMP NOT NULL,
    UNIQUE (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members(user_id);

CREATE TABLE team_invites (
    id BIGSERIAL PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    invited_by BIGINT NOT NULL REFERENCES users(id),
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP,
    used_by BIGINT REFERENCES users(id),
    revoked_at TIMESTAMP
);
CREATE INDEX team_invites_team ON team_invites(team_id);

CREATE TABLE leads (
    id BIGSERIAL PRIMARY KEY,
    team_id BIGINT REFERENCES teams(id),
    -- team_id, or 0 for unassigned leads: duplicates are looked for within one scope, and a
    -- NOT NULL column lets the unique index below treat "no team" as one scope on both backends.
    dedupe_scope BIGINT NOT NULL,
    -- USPS Publication 28 keys (see domain::address): street_key finds candidates, address_key
    -- (street key + ZIP5 or city/state) is what the unique index holds.
    street_key TEXT,
    address_key TEXT,
    address TEXT,
    city TEXT,
    state TEXT,
    zip_code TEXT,
    county TEXT,
    first_name TEXT,
    last_name TEXT,
    primary_phone TEXT,
    primary_phone_type TEXT,
    phone_2 TEXT,
    phone_3 TEXT,
    phone_4 TEXT,
    phone_5 TEXT,
    email_1 TEXT,
    email_2 TEXT,
    email_3 TEXT,
    mail_address TEXT,
    mail_city TEXT,
    mail_state TEXT,
    mail_zip TEXT,
    project_number TEXT,
    permit_date TEXT,
    permit_status TEXT,
    parcel_number TEXT,
    subdivision TEXT,
    lot TEXT,
    work_type TEXT,
    project_description TEXT,
    specific_use TEXT,
    property_type TEXT,
    lot_size TEXT,
    lot_size_acres DOUBLE PRECISION,
    bedrooms INTEGER,
    related_url TEXT,
    latitude DOUBLE PRECISION,
    longitude DOUBLE PRECISION,
    source TEXT,
    source_identifier TEXT,
    geocode_source TEXT,
    geocode_match TEXT,
    geocode_matched_address TEXT,
    county_fips TEXT,
    appraisal TEXT,
    enrichment_status TEXT NOT NULL,
    submission_count INTEGER NOT NULL DEFAULT 1,
    created_by BIGINT NOT NULL REFERENCES users(id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX leads_one_per_property ON leads(dedupe_scope, address_key) WHERE address_key IS NOT NULL;
CREATE INDEX leads_street ON leads(dedupe_scope, street_key);
CREATE INDEX leads_team_created ON leads(team_id, created_at);
CREATE INDEX leads_created ON leads(created_at);

CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    team_id BIGINT REFERENCES teams(id),
    total INTEGER NOT NULL,
    process_immediately BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    completed_at TIMESTAMP
);

-- Every submission, kept verbatim (raw_json) with its outcome: nothing submitted is ever lost.
CREATE TABLE submissions (
    id BIGSERIAL PRIMARY KEY,
    batch_id TEXT REFERENCES batches(id),
    batch_index INTEGER,
    user_id BIGINT NOT NULL REFERENCES users(id),
    team_id BIGINT REFERENCES teams(id),
    raw_json TEXT NOT NULL,
    status TEXT NOT NULL,
    result_lead_id BIGINT REFERENCES leads(id),
    result_action TEXT,
    validation_warnings TEXT NOT NULL DEFAULT '[]',
    error TEXT,
    created_at TIMESTAMP NOT NULL,
    processed_at TIMESTAMP
);
CREATE INDEX submissions_batch ON submissions(batch_id, batch_index);
CREATE INDEX submissions_status ON submissions(status);

-- Replays of requests carrying an Idempotency-Key: the first answer, kept 24 hours.
CREATE TABLE idempotency_keys (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, idempotency_key)
);

CREATE TABLE businesses (
    id BIGSERIAL PRIMARY KEY,
    team_id BIGINT REFERENCES teams(id),
    dedupe_scope BIGINT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    phone TEXT,
    website TEXT,
    website_domain TEXT,
    address TEXT,
    city TEXT,
    state TEXT,
    zip_code TEXT,
    industry TEXT,
    rating DOUBLE PRECISION,
    review_count INTEGER,
    relationship_type TEXT NOT NULL,
    status TEXT NOT NULL,
    created_by BIGINT NOT NULL REFERENCES users(id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX businesses_name_key ON businesses(dedupe_scope, name_key);
CREATE INDEX businesses_phone ON businesses(dedupe_scope, phone);
CREATE INDEX businesses_domain ON businesses(dedupe_scope, website_domain);
CREATE INDEX businesses_team ON businesses(team_id, created_at);

-- The durable job queue: deferred submissions and enrichment retries.
CREATE TABLE jobs (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    run_at TIMESTAMP NOT NULL,
    locked_at TIMESTAMP,
    locked_by TEXT,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX jobs_ready ON jobs(status, run_at);

CREATE TABLE geocode_cache (
    address_key TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    found BOOLEAN NOT NULL,
    latitude DOUBLE PRECISION,
    longitude DOUBLE PRECISION,
    match_type TEXT,
    matched_address TEXT,
    county_fips TEXT,
    created_at TIMESTAMP NOT NULL
);

-- Fixed-window request counters shared by every server process on one database.
CREATE TABLE rate_limit_counters (
    bucket TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
