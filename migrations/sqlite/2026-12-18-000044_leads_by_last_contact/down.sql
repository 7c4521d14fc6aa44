DROP INDEX leads_last_contact;
