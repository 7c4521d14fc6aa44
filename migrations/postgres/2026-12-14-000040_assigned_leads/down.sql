DROP INDEX leads_assignee_status;
CREATE INDEX leads_assignee_status ON leads(assignee_id, status) WHERE assignee_id IS NOT NULL;
