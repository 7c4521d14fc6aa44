-- When the newest contact logged on a lead was (its newest `contact_logged` timeline entry), on
-- the lead itself: a list's contact filters (`contacted`, `last_contact_before`) read it from
-- one index instead of asking the timeline once a lead (docs/working-leads.md "Contacts").
-- Kept by the timeline's triggers, whoever writes (logging a contact, a merge moving a timeline),
-- so it cannot drift from the entries it sums up.
ALTER TABLE leads ADD COLUMN last_contact_at TIMESTAMP;
UPDATE leads SET last_contact_at = (
    SELECT max(a.created_at) FROM lead_activity a
    WHERE a.lead_id = leads.id AND a.kind = 'contact_logged')
WHERE id IN (SELECT lead_id FROM lead_activity WHERE kind = 'contact_logged');

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
