-- A list's contact filters (`contacted`, `last_contact_before`) and the last contact each lead
-- of a page shows ask, per lead, whether it has contact entries and when the last was
-- (docs/working-leads.md "Contacts"): one index seek a lead. Only contact entries are in it,
-- so no other timeline write pays for it.
CREATE INDEX lead_activity_contacts_by_lead ON lead_activity(lead_id, created_at) WHERE kind = 'contact_logged';
