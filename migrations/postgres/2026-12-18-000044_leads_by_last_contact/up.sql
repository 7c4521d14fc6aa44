-- The call order (`sort=last_contact_at`: never contacted first, then the longest untried) walks
-- this index instead of sorting every visible lead. A new lead's key (no contact, its creation
-- time) and a contact's (now) both land at the end of their run, so writes append to it.
CREATE INDEX leads_last_contact ON leads(last_contact_at NULLS FIRST, created_at, id);
