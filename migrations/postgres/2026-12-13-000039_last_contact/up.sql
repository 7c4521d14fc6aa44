-- When the newest contact logged on a lead was (its newest `contact_logged` timeline entry), on
-- the lead itself: a list's contact filters (`contacted`, `last_contact_before`) read it from
-- one index instead of asking the timeline once a lead (docs/working-leads.md "Contacts").
-- Kept by the timeline's triggers, whoever writes (logging a contact, a merge moving a timeline),
-- so it cannot drift from the entries it sums up.
ALTER TABLE leads ADD COLUMN last_contact_at TIMESTAMP;
UPDATE leads SET last_contact_at = c.last_at
FROM (SELECT lead_id, max(created_at) AS last_at FROM lead_activity
      WHERE kind = 'contact_logged' GROUP BY lead_id) AS c
WHERE leads.id = c.lead_id;

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
