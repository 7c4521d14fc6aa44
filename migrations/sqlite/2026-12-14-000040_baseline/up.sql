-- The whole schema at once, SQLite's (the PostgreSQL baseline beside it builds the same in
-- meaning: crates/db/tests/schema_parity.rs). It stands for the step-by-step migrations before it,
-- which git history keeps, and has the version of the last of them, so a database they brought up
-- to date counts it as applied (crates/db/src/pool/migrations.rs; docs/deploy.md, "Upgrades").
-- crates/db/tests/schema.rs pins what it builds.

CREATE TABLE users (
    id INTEGER PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL UNIQUE,
    first_name TEXT,
    last_name TEXT,
    is_admin BOOLEAN NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    -- `leadhub user deactivate`: a deactivated person cannot sign in or use a key or token; their
    -- leads, notes and webhooks stay with their teams (docs/operations.md).
    deactivated_at TIMESTAMP,
    -- The e-mail of follow-ups due (docs/working-leads.md, "Follow-ups"): on for everyone until
    -- they turn it off on their dashboard.
    follow_up_digest BOOLEAN NOT NULL DEFAULT 1
);

CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id),
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP
);

CREATE TABLE teams (
    id INTEGER PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    is_active BOOLEAN NOT NULL DEFAULT 1,
    created_by BIGINT NOT NULL REFERENCES users(id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE team_members (
    id INTEGER PRIMARY KEY NOT NULL,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL,
    is_active BOOLEAN NOT NULL DEFAULT 1,
    joined_at TIMESTAMP NOT NULL,
    UNIQUE (team_id, user_id)
);

CREATE INDEX team_members_user ON team_members(user_id);

CREATE TABLE team_invites (
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
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
    -- leads an upload created or updated. Null for the API's batches and the CLI's imports. No
    -- REFERENCES on SQLite (uploads are never deleted); PostgreSQL's column has the foreign key.
    upload_id BIGINT
);

-- Every submission, kept verbatim (raw_json) with its outcome: nothing submitted is ever lost.
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id),
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, idempotency_key)
);

CREATE TABLE businesses (
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
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

-- CSV files uploaded from the pages: the file's bytes are kept here (not in memory or on one
-- machine's disk) so the import job survives a restart and runs on any process; the reject
-- report is kept next to it for download.
CREATE TABLE uploads (
    id INTEGER PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    file_name TEXT NOT NULL,
    options TEXT NOT NULL,
    content BLOB NOT NULL,
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
    report BLOB,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    -- An import's warnings (cells dropped or flagged in rows that were imported) and its summary
    -- for the upload page: the encoding read, the column mapping, the ignored columns and the
    -- most frequent reasons, as JSON.
    warnings BIGINT NOT NULL DEFAULT 0,
    summary TEXT
);

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
    id INTEGER PRIMARY KEY NOT NULL,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT,
    is_active BOOLEAN NOT NULL DEFAULT 1,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    -- Who registered a webhook endpoint: shown by the API; the endpoint belongs to the
    -- team, so it keeps delivering when that person leaves the team (docs/webhooks.md). No REFERENCES
    -- on SQLite (users are never deleted, only deactivated); PostgreSQL's column has the foreign key.
    created_by BIGINT
);

CREATE INDEX webhook_endpoints_team ON webhook_endpoints(team_id);

CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
    events TEXT NOT NULL,
    occurred_at TIMESTAMP NOT NULL
);

CREATE INDEX leads_updated ON leads(updated_at, id);

-- Notes are append-only: deleting one stamps deleted_at/deleted_by (the timeline says "note
-- deleted"); the text stays for the record.
CREATE TABLE lead_notes (
    id INTEGER PRIMARY KEY NOT NULL,
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
    id INTEGER PRIMARY KEY NOT NULL,
    lead_id BIGINT NOT NULL REFERENCES leads(id),
    actor_id BIGINT REFERENCES users(id),
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE INDEX lead_activity_lead ON lead_activity(lead_id, id);

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

-- The dashboard's lead counts, kept in step with every write to leads by the triggers below (so
-- every writer keeps them right without knowing of them): one row per team scope (team_id, or 0
-- for unassigned leads), UTC creation day, source ('' for none), enrichment status and status,
-- counting the live leads (not archived, not merged away). Rows that fall to 0 stay; readers
-- add them up, so a 0 changes nothing. Read by db lead/dashboard.rs; a test compares it with a
-- full recount. `stripe` is PostgreSQL's (there each connection adds to its own row); SQLite has
-- one writer, so every row here is stripe 0, and one reader serves both backends.
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
WHEN NEW.archived_at IS NULL AND NEW.merged_into_id IS NULL
BEGIN
    INSERT INTO lead_daily_counts (team_scope, day, source, enrichment_status, status, stripe, n)
    VALUES (COALESCE(NEW.team_id, 0), date(NEW.created_at), COALESCE(NEW.source, ''),
            NEW.enrichment_status, NEW.status, 0, 1)
    ON CONFLICT (team_scope, day, source, enrichment_status, status, stripe) DO UPDATE SET n = n + 1;
END;

-- Only an update that moves a lead to another row of counts, or in or out of the live ones,
-- does anything (most updates of a lead change neither).
CREATE TRIGGER lead_daily_counts_update
AFTER UPDATE OF team_id, created_at, source, enrichment_status, status, archived_at, merged_into_id
ON leads
WHEN OLD.team_id IS NOT NEW.team_id
  OR date(OLD.created_at) IS NOT date(NEW.created_at)
  OR OLD.source IS NOT NEW.source
  OR OLD.enrichment_status IS NOT NEW.enrichment_status
  OR OLD.status IS NOT NEW.status
  OR (OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL)
  OR (OLD.merged_into_id IS NULL) <> (NEW.merged_into_id IS NULL)
BEGIN
    UPDATE lead_daily_counts SET n = n - 1
    WHERE OLD.archived_at IS NULL AND OLD.merged_into_id IS NULL
      AND team_scope = COALESCE(OLD.team_id, 0) AND day = date(OLD.created_at)
      AND source = COALESCE(OLD.source, '') AND enrichment_status = OLD.enrichment_status
      AND status = OLD.status AND stripe = 0;
    -- `WHERE` before `ON CONFLICT`: SQLite's parser needs it after an INSERT ... SELECT.
    INSERT INTO lead_daily_counts (team_scope, day, source, enrichment_status, status, stripe, n)
    SELECT COALESCE(NEW.team_id, 0), date(NEW.created_at), COALESCE(NEW.source, ''),
           NEW.enrichment_status, NEW.status, 0, 1
    WHERE NEW.archived_at IS NULL AND NEW.merged_into_id IS NULL
    ON CONFLICT (team_scope, day, source, enrichment_status, status, stripe) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER lead_daily_counts_delete AFTER DELETE ON leads
WHEN OLD.archived_at IS NULL AND OLD.merged_into_id IS NULL
BEGIN
    UPDATE lead_daily_counts SET n = n - 1
    WHERE team_scope = COALESCE(OLD.team_id, 0) AND day = date(OLD.created_at)
      AND source = COALESCE(OLD.source, '') AND enrichment_status = OLD.enrichment_status
      AND status = OLD.status AND stripe = 0;
END;

CREATE VIRTUAL TABLE lead_search USING fts5(words, state, source, permit_status, property_type, city, county, work_type, zip, visibility, tokenize = "unicode61 tokenchars '_'", content = '', contentless_delete = 1);

CREATE VIEW lead_search_rows AS SELECT id,
    coalesce(address, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(project_number, '') || ' ' || coalesce(email_1, '') || ' ' || coalesce(email_2, '') || ' ' || coalesce(email_3, '') || ' ' || coalesce(d1 || ' ' || substr(d1, -10) || ' ' || substr(d1, -7), '') || ' ' || coalesce(d2 || ' ' || substr(d2, -10) || ' ' || substr(d2, -7), '') || ' ' || coalesce(d3 || ' ' || substr(d3, -10) || ' ' || substr(d3, -7), '') || ' ' || coalesce(d4 || ' ' || substr(d4, -10) || ' ' || substr(d4, -7), '') || ' ' || coalesce(d5 || ' ' || substr(d5, -10) || ' ' || substr(d5, -7), '') AS words,
    'f0' || replace(trim(state), ' ', '_') AS state,
    'f1' || replace(trim(source), ' ', '_') AS source,
    'f2' || replace(trim(permit_status), ' ', '_') AS permit_status,
    'f3' || replace(trim(property_type), ' ', '_') AS property_type,
    'f4' || replace(trim(city), ' ', '_') AS city,
    'f5' || replace(trim(county), ' ', '_') AS county,
    'f6' || replace(trim(work_type), ' ', '_') AS work_type,
    'z' || substr(zip_code, 1, 5) AS zip,
    't' || coalesce(team_id, 0) || ' ' || CASE WHEN merged_into_id IS NOT NULL THEN 'vmerged' WHEN archived_at IS NOT NULL THEN 'varchived' ELSE 'vlive' END AS visibility
FROM (SELECT *, replace(replace(replace(replace(replace(replace(primary_phone, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d1, replace(replace(replace(replace(replace(replace(phone_2, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d2, replace(replace(replace(replace(replace(replace(phone_3, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d3, replace(replace(replace(replace(replace(replace(phone_4, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d4, replace(replace(replace(replace(replace(replace(phone_5, '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '') AS d5 FROM leads);

CREATE TRIGGER lead_search_insert AFTER INSERT ON leads BEGIN
    INSERT INTO lead_search(rowid, words, state, source, permit_status, property_type, city, county, work_type, zip, visibility) SELECT * FROM lead_search_rows WHERE id = new.id;
END;

CREATE TRIGGER lead_search_update AFTER UPDATE OF address, first_name, last_name, project_number, email_1, email_2, email_3, primary_phone, phone_2, phone_3, phone_4, phone_5, state, source, permit_status, property_type, city, county, work_type, zip_code, team_id, archived_at, merged_into_id ON leads
WHEN old.address IS NOT new.address OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name OR old.project_number IS NOT new.project_number OR old.email_1 IS NOT new.email_1 OR old.email_2 IS NOT new.email_2 OR old.email_3 IS NOT new.email_3 OR old.primary_phone IS NOT new.primary_phone OR old.phone_2 IS NOT new.phone_2 OR old.phone_3 IS NOT new.phone_3 OR old.phone_4 IS NOT new.phone_4 OR old.phone_5 IS NOT new.phone_5 OR old.state IS NOT new.state OR old.source IS NOT new.source OR old.permit_status IS NOT new.permit_status OR old.property_type IS NOT new.property_type OR old.city IS NOT new.city OR old.county IS NOT new.county OR old.work_type IS NOT new.work_type OR old.zip_code IS NOT new.zip_code OR old.team_id IS NOT new.team_id OR old.archived_at IS NOT new.archived_at OR old.merged_into_id IS NOT new.merged_into_id BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
    INSERT INTO lead_search(rowid, words, state, source, permit_status, property_type, city, county, work_type, zip, visibility) SELECT * FROM lead_search_rows WHERE id = new.id;
END;

CREATE TRIGGER lead_search_delete AFTER DELETE ON leads BEGIN
    DELETE FROM lead_search WHERE rowid = old.id;
END;

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
WHEN NEW.kind = 'contact_logged'
BEGIN
    UPDATE leads SET last_contact_at = NEW.created_at
    WHERE id = NEW.lead_id AND (last_contact_at IS NULL OR last_contact_at < NEW.created_at);
END;

-- A merge moves the merged lead's timeline to the survivor: both leads are summed up again.
CREATE TRIGGER leads_last_contact_update AFTER UPDATE OF lead_id, kind, created_at ON lead_activity
WHEN OLD.kind = 'contact_logged' OR NEW.kind = 'contact_logged'
BEGIN
    UPDATE leads SET last_contact_at = (
        SELECT max(a.created_at) FROM lead_activity a
        WHERE a.lead_id = leads.id AND a.kind = 'contact_logged')
    WHERE id IN (OLD.lead_id, NEW.lead_id);
END;

CREATE TRIGGER leads_last_contact_delete AFTER DELETE ON lead_activity
WHEN OLD.kind = 'contact_logged'
BEGIN
    UPDATE leads SET last_contact_at = (
        SELECT max(a.created_at) FROM lead_activity a
        WHERE a.lead_id = leads.id AND a.kind = 'contact_logged')
    WHERE id = OLD.lead_id;
END;

-- Only the contacted leads, newest first, with what a list checks of each (team, archive,
-- merge): the contacted leads are counted from it alone, and a list of them reads it in order.
CREATE INDEX leads_contacted ON leads(created_at, id, team_id, archived_at, merged_into_id, last_contact_at)
WHERE last_contact_at IS NOT NULL;

CREATE INDEX leads_assignee_status ON leads(assignee_id, status, team_id, archived_at, merged_into_id)
WHERE assignee_id IS NOT NULL;
