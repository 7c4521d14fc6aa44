DROP INDEX webhook_deliveries_endpoint_due;
ALTER TABLE webhook_endpoints DROP COLUMN created_by;
