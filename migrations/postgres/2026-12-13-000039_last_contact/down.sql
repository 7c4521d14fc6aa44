DROP INDEX leads_contacted;
DROP TRIGGER leads_last_contact_delete ON lead_activity;
DROP TRIGGER leads_last_contact_moved_from ON lead_activity;
DROP TRIGGER leads_last_contact_moved_to ON lead_activity;
DROP TRIGGER leads_last_contact_insert ON lead_activity;
DROP FUNCTION leads_last_contact_removed();
DROP FUNCTION leads_last_contact_logged();
ALTER TABLE leads DROP COLUMN last_contact_at;
