DROP INDEX lead_activity_contacts;
