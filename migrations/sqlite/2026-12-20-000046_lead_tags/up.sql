-- A lead's tags ("hot", "storm 2026"): the lead row keeps them as a JSON array of strings, sorted,
-- so every read of a lead has them; `lead_tags` holds one row a tag for the `tag=` filter, written
-- with the column in the same statement group (`lead::lead_work`).
ALTER TABLE leads ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';

CREATE TABLE lead_tags (
    tag TEXT NOT NULL,
    lead_id BIGINT NOT NULL REFERENCES leads(id),
    PRIMARY KEY (tag, lead_id)
) WITHOUT ROWID;

CREATE INDEX lead_tags_lead ON lead_tags(lead_id);
