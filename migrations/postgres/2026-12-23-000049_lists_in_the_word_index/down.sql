DROP INDEX leads_without_email;
DROP INDEX leads_without_phone;
