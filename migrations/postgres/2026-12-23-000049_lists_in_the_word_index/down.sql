DROP INDEX leads_without_phone;
