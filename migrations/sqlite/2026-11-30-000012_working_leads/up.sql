-- Working the leads (issue 29): where a lead stands, who works it, its notes and its history.
-- status: new | contacted | qualified | won | lost (every existing lead starts as new).
-- version: the optimistic-concurrency counter behind a lead's ETag, raised by every change.
-- archived_at: set by archive, cleared by restore; archived leads leave lists, exports and the
-- dashboard unless asked for. merged_into_id: set when a person merges this lead into another;
-- such a lead keeps its data, gives up its address_key (the survivor holds the property) and is
-- left out of every list, count and duplicate check.
ALTER TABLE leads ADD COLUMN status TEXT NOT NULL DEFAULT 'new';
ALTER TABLE leads ADD COLUMN assignee_id BIGINT REFERENCES users(id);
ALTER TABLE leads ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
ALTER TABLE leads ADD COLUMN archived_at TIMESTAMP;
ALTER TABLE leads ADD COLUMN merged_into_id BIGINT REFERENCES leads(id);
CREATE INDEX leads_assignee_status ON leads(assignee_id, status) WHERE assignee_id IS NOT NULL;

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
