-- The whole schema at once, PostgreSQL's (the SQLite baseline beside it builds the same in
-- meaning: crates/db/tests/schema_parity.rs). It stands for the step-by-step migrations before it,
-- which git history keeps, and has the version of the last of them, so a database they brought up
-- to date counts it as applied (crates/db/src/pool/migrations.rs; docs/deploy.md, "Upgrades").
-- crates/db/tests/schema.rs pins what it builds.

-- `q`: a substring of the address, owner name, project number, e-mail, or of a phone's digits,
-- found through a pg_trgm index on one lower-cased text per lead (an expression index, so it
-- is kept in step by every write). The parts are separated by a newline so no match runs
-- across two of them. pg_trgm is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

CREATE FUNCTION lead_search_doc(address text, first_name text, last_name text, project_number text, primary_phone text, phone_2 text, phone_3 text, phone_4 text, phone_5 text, email_1 text, email_2 text, email_3 text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower(coalesce(address, '') || E'\n' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || E'\n' || coalesce(project_number, '') || E'\n' || coalesce(regexp_replace(primary_phone, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_2, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_3, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_4, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(regexp_replace(phone_5, '[^0-9]', '', 'g'), '') || E'\n' || coalesce(email_1, '') || E'\n' || coalesce(email_2, '') || E'\n' || coalesce(email_3, ''));

-- Statement triggers with transition tables: a batch of 1,000 leads adds its counts in one
-- statement, not 1,000. The rows are changed in key order, the same in every transaction, so
-- two concurrent writers never wait on each other's count rows in opposite orders.
CREATE FUNCTION lead_daily_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    -- This connection's own count rows (see lead_daily_counts).
    own_stripe INTEGER := pg_backend_pid() % 64;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO lead_daily_counts AS c (team_scope, day, source, enrichment_status, status, stripe, n)
        SELECT COALESCE(team_id, 0), to_char(created_at, 'YYYY-MM-DD'), COALESCE(source, ''),
               enrichment_status, status, own_stripe, count(*)
        FROM new_leads
        WHERE archived_at IS NULL AND merged_into_id IS NULL
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (team_scope, day, source, enrichment_status, status, stripe)
        DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSIF TG_OP = 'DELETE' THEN
        -- A deleted live lead's count goes to this connection's stripe, as -1 where need be.
        INSERT INTO lead_daily_counts AS c (team_scope, day, source, enrichment_status, status, stripe, n)
        SELECT COALESCE(team_id, 0), to_char(created_at, 'YYYY-MM-DD'), COALESCE(source, ''),
               enrichment_status, status, own_stripe, -count(*)
        FROM old_leads
        WHERE archived_at IS NULL AND merged_into_id IS NULL
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (team_scope, day, source, enrichment_status, status, stripe)
        DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSE
        -- Only the rows that move to another row of counts, or in or out of the live ones.
        INSERT INTO lead_daily_counts AS c (team_scope, day, source, enrichment_status, status, stripe, n)
        SELECT team_scope, day, source, enrichment_status, status, own_stripe, sum(delta)
        FROM (
            SELECT COALESCE(o.team_id, 0) AS team_scope, to_char(o.created_at, 'YYYY-MM-DD') AS day,
                   COALESCE(o.source, '') AS source, o.enrichment_status, o.status,
                   CASE WHEN o.archived_at IS NULL AND o.merged_into_id IS NULL THEN -1 ELSE 0 END AS delta
            FROM old_leads o JOIN new_leads n ON n.id = o.id
            WHERE (o.team_id, o.created_at::date, o.source, o.enrichment_status, o.status,
                   o.archived_at IS NULL, o.merged_into_id IS NULL)
                IS DISTINCT FROM
                  (n.team_id, n.created_at::date, n.source, n.enrichment_status, n.status,
                   n.archived_at IS NULL, n.merged_into_id IS NULL)
            UNION ALL
            SELECT COALESCE(n.team_id, 0), to_char(n.created_at, 'YYYY-MM-DD'),
                   COALESCE(n.source, ''), n.enrichment_status, n.status,
                   CASE WHEN n.archived_at IS NULL AND n.merged_into_id IS NULL THEN 1 ELSE 0 END
            FROM old_leads o JOIN new_leads n ON n.id = o.id
            WHERE (o.team_id, o.created_at::date, o.source, o.enrichment_status, o.status,
                   o.archived_at IS NULL, o.merged_into_id IS NULL)
                IS DISTINCT FROM
                  (n.team_id, n.created_at::date, n.source, n.enrichment_status, n.status,
                   n.archived_at IS NULL, n.merged_into_id IS NULL)
        ) AS moves
        GROUP BY 1, 2, 3, 4, 5
        HAVING sum(delta) <> 0
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (team_scope, day, source, enrichment_status, status, stripe)
        DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END;
$$;

-- Statement triggers over the transition tables: one UPDATE of the leads a statement touched, so
-- a bulk contact or a merge updates each lead once (and runs the rollup's trigger once), not once
-- an entry. A statement without contact entries (a note, a status change) updates nothing: a
-- statement trigger runs even for no rows, and so would the rollup's.
CREATE FUNCTION leads_last_contact_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM new_entries WHERE kind = 'contact_logged') THEN
        RETURN NULL;
    END IF;
    UPDATE leads SET last_contact_at = c.last_at
    FROM (SELECT lead_id, max(created_at) AS last_at FROM new_entries
          WHERE kind = 'contact_logged' GROUP BY lead_id) AS c
    WHERE leads.id = c.lead_id
      AND (leads.last_contact_at IS NULL OR leads.last_contact_at < c.last_at);
    RETURN NULL;
END;
$$;

-- A removed or moved entry: the leads it left are summed up again from their timelines. A moved
-- one (a merge moves the merged lead's timeline to the survivor) is also logged on the lead it
-- joined, as an insert is.
CREATE FUNCTION leads_last_contact_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE leads SET last_contact_at = (
        SELECT max(a.created_at) FROM lead_activity a
        WHERE a.lead_id = leads.id AND a.kind = 'contact_logged')
    WHERE id IN (SELECT lead_id FROM old_entries WHERE kind = 'contact_logged');
    RETURN NULL;
END;
$$;

CREATE TABLE users (
    id BIGSERIAL PRIMARY KEY,
    user_id TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL UNIQUE,
    first_name TEXT,
    last_name TEXT,
    is_admin BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    -- `leadhub user deactivate`: a deactivated person cannot sign in or use a key or token; their
    -- leads, notes and webhooks stay with their teams (docs/operations.md).
    deactivated_at TIMESTAMP,
    -- The e-mail of follow-ups due (docs/working-leads.md, "Follow-ups"): on for everyone until
    -- they turn it off on their dashboard.
    follow_up_digest BOOLEAN NOT NULL DEFAULT TRUE
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
    updated_at TIMESTAMP NOT NULL,
    -- Working the leads: where a lead stands, who works it, its notes and its history.
    -- status: new | contacted | qualified | won | lost (a lead starts as new).
    -- version: the optimistic-concurrency counter behind a lead's ETag, raised by every change.
    -- archived_at: set by archive, cleared by restore; archived leads leave lists, exports and the
    -- dashboard unless asked for. merged_into_id: set when a person merges this lead into another;
    -- such a lead keeps its data, gives up its address_key (the survivor holds the property) and is
    -- left out of every list, count and duplicate check.
    status TEXT NOT NULL DEFAULT 'new',
    assignee_id BIGINT REFERENCES users(id),
    version BIGINT NOT NULL DEFAULT 1,
    archived_at TIMESTAMP,
    merged_into_id BIGINT REFERENCES leads(id),
    search_doc text GENERATED ALWAYS AS (lead_search_doc(address, first_name, last_name, project_number, primary_phone, phone_2, phone_3, phone_4, phone_5, email_1, email_2, email_3)) STORED,
    -- The day someone means to contact the lead next (docs/working-leads.md): a calendar date, no
    -- time and no zone, set and cleared by a person. The "Follow-ups due" view lists the leads due
    -- by a day, soonest first, from this index: only leads with a date are in it.
    follow_up_on DATE,
    -- When the newest contact logged on a lead was (its newest `contact_logged` timeline entry), on
    -- the lead itself: a list's contact filters (`contacted`, `last_contact_before`) read it from
    -- one index instead of asking the timeline once a lead (docs/working-leads.md "Contacts").
    -- Kept by the timeline's triggers, whoever writes (logging a contact, a merge moving a timeline),
    -- so it cannot drift from the entries it sums up.
    last_contact_at TIMESTAMP
);

CREATE UNIQUE INDEX leads_one_per_property ON leads(dedupe_scope, address_key) WHERE address_key IS NOT NULL;

CREATE INDEX leads_street ON leads(dedupe_scope, street_key);

CREATE INDEX leads_team_created ON leads(team_id, created_at);

CREATE INDEX leads_created ON leads(created_at);

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
    updated_at TIMESTAMP NOT NULL,
    -- An import's warnings (cells dropped or flagged in rows that were imported) and its summary
    -- for the upload page: the encoding read, the column mapping, the ignored columns and the
    -- most frequent reasons, as JSON.
    warnings BIGINT NOT NULL DEFAULT 0,
    summary TEXT
);

CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    team_id BIGINT REFERENCES teams(id),
    total INTEGER NOT NULL,
    process_immediately BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    completed_at TIMESTAMP,
    -- What a request holding an Idempotency-Key stored, written in the same transaction as the
    -- batch or the single submission itself: a key is then either linked to what it stored or
    -- linked to nothing (its request stored nothing), never stored-but-unknown.
    idempotency_key_id BIGINT,
    -- Which browser upload a batch of submissions came from: `/leads?upload={id}` lists the
    -- leads an upload created or updated. Null for the API's batches and the CLI's imports.
    upload_id BIGINT REFERENCES uploads(id)
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
    processed_at TIMESTAMP,
    idempotency_key_id BIGINT
);

CREATE INDEX submissions_batch ON submissions(batch_id, batch_index);

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

CREATE INDEX batches_idempotency_key ON batches (idempotency_key_id);

CREATE INDEX submissions_idempotency_key ON submissions (idempotency_key_id);

-- A lead's submission history (the lead page) reads submissions by their lead; the lead pages
-- and the export filter by enrichment status like the other exact filters.
CREATE INDEX submissions_result_lead ON submissions(result_lead_id, created_at);

CREATE INDEX leads_enrichment_status_created ON leads(enrichment_status, created_at);

CREATE INDEX uploads_team ON uploads(team_id, created_at);

-- The dashboard counts the visible leads by source and enrichment status: with the team in the
-- index that count reads the index alone (SQLite, 100,000 leads: 60 -> 8 ms of CPU). Failed
-- submissions are few: a partial index finds and counts them without reading every submission,
-- and costs nothing for the others.
CREATE INDEX leads_source_enrichment ON leads(source, enrichment_status, team_id);

CREATE INDEX submissions_failed ON submissions(id) WHERE status = 'failed';

-- Outgoing webhooks: a team's endpoints, and the outbox of deliveries written in the same
-- transaction as the event they tell of. The signing secret is stored usable: Standard Webhooks
-- signs with it (docs/webhooks.md).
CREATE TABLE webhook_endpoints (
    id BIGSERIAL PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT,
    is_active BOOLEAN NOT NULL DEFAULT TRUE,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    -- Who registered a webhook endpoint: shown by the API; the endpoint belongs to the
    -- team, so it keeps delivering when that person leaves the team (docs/webhooks.md).
    created_by BIGINT REFERENCES users(id)
);

CREATE INDEX webhook_endpoints_team ON webhook_endpoints(team_id);

CREATE TABLE webhook_deliveries (
    id BIGSERIAL PRIMARY KEY,
    endpoint_id BIGINT NOT NULL REFERENCES webhook_endpoints(id),
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    subject TEXT,
    payload TEXT,
    occurred_at TIMESTAMP NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP,
    last_status INTEGER,
    last_error TEXT,
    delivered_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries(endpoint_id, event_id);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);

-- Webhook events not yet fanned out to their endpoints' deliveries: one row per transaction
-- that emitted events for a listening team, written in that transaction. The delivery worker
-- turns a row into `webhook_deliveries` rows and deletes it, in one transaction of its own.
CREATE TABLE webhook_events (
    id BIGSERIAL PRIMARY KEY,
    events TEXT NOT NULL,
    occurred_at TIMESTAMP NOT NULL
);

CREATE INDEX leads_updated ON leads(updated_at, id);

CREATE INDEX leads_permit_date ON leads(permit_date NULLS FIRST, created_at, id);

-- Notes are append-only: deleting one stamps deleted_at/deleted_by (the timeline says "note
-- deleted"); the text stays for the record.
CREATE TABLE lead_notes (
    id BIGSERIAL PRIMARY KEY,
    lead_id BIGINT NOT NULL REFERENCES leads(id),
    author_id BIGINT NOT NULL REFERENCES users(id),
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP,
    deleted_by BIGINT REFERENCES users(id)
);

CREATE INDEX lead_notes_lead ON lead_notes(lead_id, id);

-- One timeline per lead: edits, status and owner changes, notes, team moves, merges,
-- archive/restore, enrichment runs. kind names the entry; detail is its JSON (for an edit,
-- field -> {old, new}); actor_id is empty for the service's own work (enrichment).
CREATE TABLE lead_activity (
    id BIGSERIAL PRIMARY KEY,
    lead_id BIGINT NOT NULL REFERENCES leads(id),
    actor_id BIGINT REFERENCES users(id),
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE INDEX lead_activity_lead ON lead_activity(lead_id, id);

-- The dashboard's lead counts, kept in step with every write to leads by the triggers below (so
-- every writer keeps them right without knowing of them): one row per team scope (team_id, or 0
-- for unassigned leads), UTC creation day, source ('' for none), enrichment status and status,
-- counting the live leads (not archived, not merged away). Rows that fall to 0 stay; readers
-- add them up, so a 0 changes nothing. Read by db lead/dashboard.rs; a test compares it with a
-- full recount.
-- The dashboard's lead counts, kept in step with every write to leads by the triggers below (so
-- every writer keeps them right without knowing of them): one row per team scope (team_id, or 0
-- for unassigned leads), UTC creation day, source ('' for none), enrichment status and status,
-- counting the live leads (not archived, not merged away). Rows that fall to 0 stay; readers
-- add them up, so a 0 changes nothing. Read by db lead/dashboard.rs; a test compares it with a
-- full recount.
-- Concurrent writers of one team's leads on one day (single-submission groups, batches, the
-- enrichment worker) would all add to the same row of counts, and PostgreSQL holds a row's lock
-- until its writer commits. Each connection adds to its own stripe of the counts (its backend's
-- pid modulo 64), so writers on different connections do not wait on each other; readers add the
-- rows up. SQLite has one writer: its stripe is always 0.
CREATE TABLE lead_daily_counts (
    team_scope BIGINT NOT NULL,
    day TEXT NOT NULL,
    source TEXT NOT NULL,
    enrichment_status TEXT NOT NULL,
    status TEXT NOT NULL,
    stripe INTEGER NOT NULL DEFAULT 0,
    n BIGINT NOT NULL,
    PRIMARY KEY (team_scope, day, source, enrichment_status, status, stripe)
);

CREATE TRIGGER lead_daily_counts_insert AFTER INSERT ON leads
    REFERENCING NEW TABLE AS new_leads
    FOR EACH STATEMENT EXECUTE FUNCTION lead_daily_counts_apply();

CREATE TRIGGER lead_daily_counts_update AFTER UPDATE ON leads
    REFERENCING OLD TABLE AS old_leads NEW TABLE AS new_leads
    FOR EACH STATEMENT EXECUTE FUNCTION lead_daily_counts_apply();

CREATE TRIGGER lead_daily_counts_delete AFTER DELETE ON leads
    REFERENCING OLD TABLE AS old_leads
    FOR EACH STATEMENT EXECUTE FUNCTION lead_daily_counts_apply();

-- The submission figures count the last 30 days: this index finds them by time and holds every
-- column they group and filter by, so the count reads the index alone.
CREATE INDEX submissions_created_outcome
    ON submissions(created_at, status, result_action, team_id, user_id);

-- What lies ahead for a lead whose enrichment waits (docs/jobs.md, "Enrichment retries"): the
-- next try, or when its retries gave up, and the last reason in words. Written with the retry job
-- and after each of its runs; read only for leads that are pending_retry or gave_up.
CREATE TABLE lead_enrichment_retries (
    lead_id BIGINT PRIMARY KEY NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
    next_try_at TIMESTAMP,
    gave_up_at TIMESTAMP,
    last_reason TEXT,
    updated_at TIMESTAMP NOT NULL
);

-- The worker claims each endpoint's due deliveries in turn (round-robin over teams and
-- endpoints), looking up the oldest due one of every active endpoint: one probe of this index each.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries(endpoint_id, status, next_attempt_at);

-- The filter reads an upload's batches, then their submissions by `submissions_batch`: only the
-- few batches of uploads are in this index.
CREATE INDEX batches_upload ON batches(upload_id) WHERE upload_id IS NOT NULL;

CREATE INDEX leads_state_filter ON leads(state, created_at, id, team_id, archived_at, merged_into_id, source, lower(permit_status), property_type, enrichment_status, permit_status);

CREATE INDEX leads_source_filter ON leads(source, created_at, id, team_id, archived_at, merged_into_id, state, lower(permit_status), property_type, enrichment_status, permit_status);

CREATE INDEX leads_permit_status_filter ON leads(lower(permit_status), created_at, id, team_id, archived_at, merged_into_id, state, source, property_type, enrichment_status, permit_status);

CREATE INDEX leads_property_type_filter ON leads(property_type, created_at, id, team_id, archived_at, merged_into_id);

CREATE INDEX leads_city_filter ON leads(lower(city) NULLS FIRST, created_at, id, team_id, archived_at, merged_into_id, city, state, source, permit_status);

CREATE INDEX leads_county_filter ON leads(lower(county), created_at, id, team_id, archived_at, merged_into_id, county);

CREATE INDEX leads_work_type_filter ON leads(lower(work_type), created_at, id, team_id, archived_at, merged_into_id, work_type);

CREATE INDEX leads_zip_filter ON leads(substr(zip_code, 1, 5), created_at, id, team_id, archived_at, merged_into_id);

-- A lead found by id (`q`'s matches, an upload's leads) is checked for visibility, put in
-- order and matched against `state` from this narrow index instead of its wide row: a street
-- word matching 17,000 leads reads 17,000 short entries rather than 17,000 rows.
CREATE INDEX leads_visible ON leads(id, team_id, archived_at, merged_into_id, created_at, state);

CREATE INDEX lead_search_trgm ON leads USING gin (search_doc public.gin_trgm_ops);

CREATE INDEX leads_follow_up ON leads(follow_up_on, created_at, id, team_id, archived_at, merged_into_id) WHERE follow_up_on IS NOT NULL;

-- The team page counts the contacts each member logged today and in the last 7 days
-- (docs/working-leads.md "Contacts"): the logged contacts by time. Only contact entries are in
-- it, so no other timeline write pays for it.
CREATE INDEX lead_activity_contacts ON lead_activity(created_at, lead_id) WHERE kind = 'contact_logged';

-- A list's contact filters (`contacted`, `last_contact_before`) and the last contact each lead
-- of a page shows ask, per lead, whether it has contact entries and when the last was
-- (docs/working-leads.md "Contacts"): one index seek a lead. Only contact entries are in it,
-- so no other timeline write pays for it.
CREATE INDEX lead_activity_contacts_by_lead ON lead_activity(lead_id, created_at) WHERE kind = 'contact_logged';

-- A day whose digest job was queued: the first process to insert the day queues the job, in
-- the same transaction, so several processes queue it once.
CREATE TABLE follow_up_digest_days (
    day DATE PRIMARY KEY NOT NULL,
    queued_at TIMESTAMP NOT NULL
);

-- A person's digest of a day, written before the e-mail goes (and taken back if it fails), so a
-- retried job sends each person's at most once.
CREATE TABLE follow_up_digests (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    day DATE NOT NULL,
    sent_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, day)
);

CREATE TRIGGER leads_last_contact_insert AFTER INSERT ON lead_activity
REFERENCING NEW TABLE AS new_entries
FOR EACH STATEMENT EXECUTE FUNCTION leads_last_contact_logged();

CREATE TRIGGER leads_last_contact_moved_to AFTER UPDATE ON lead_activity
REFERENCING NEW TABLE AS new_entries
FOR EACH STATEMENT EXECUTE FUNCTION leads_last_contact_logged();

CREATE TRIGGER leads_last_contact_moved_from AFTER UPDATE ON lead_activity
REFERENCING OLD TABLE AS old_entries
FOR EACH STATEMENT EXECUTE FUNCTION leads_last_contact_removed();

CREATE TRIGGER leads_last_contact_delete AFTER DELETE ON lead_activity
REFERENCING OLD TABLE AS old_entries
FOR EACH STATEMENT EXECUTE FUNCTION leads_last_contact_removed();

-- Only the contacted leads, newest first, with what a list checks of each (team, archive,
-- merge): the contacted leads are counted from it alone, and a list of them reads it in order.
CREATE INDEX leads_contacted ON leads(created_at, id, team_id, archived_at, merged_into_id, last_contact_at)
WHERE last_contact_at IS NOT NULL;

CREATE INDEX leads_assignee_status ON leads(assignee_id, status, team_id, archived_at, merged_into_id)
WHERE assignee_id IS NOT NULL;
