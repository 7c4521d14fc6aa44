DROP INDEX leads_permit_status_created;
DROP INDEX leads_property_type_created;
DROP INDEX leads_source_created;
DROP INDEX leads_city_created;
DROP INDEX leads_state_created;
