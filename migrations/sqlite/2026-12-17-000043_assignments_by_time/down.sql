DROP INDEX lead_activity_assigned;
