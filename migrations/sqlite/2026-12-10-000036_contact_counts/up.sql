-- The team page counts the contacts each member logged today and in the last 7 days
-- (docs/working-leads.md "Contacts"): the logged contacts by time. Only contact entries are in
-- it, so no other timeline write pays for it.
CREATE INDEX lead_activity_contacts ON lead_activity(created_at, lead_id) WHERE kind = 'contact_logged';
