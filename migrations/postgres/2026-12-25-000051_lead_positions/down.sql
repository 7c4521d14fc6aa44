DROP INDEX leads_position;
