DROP INDEX leads_contacted;
DROP TRIGGER leads_last_contact_delete;
DROP TRIGGER leads_last_contact_update;
DROP TRIGGER leads_last_contact_insert;
ALTER TABLE leads DROP COLUMN last_contact_at;
