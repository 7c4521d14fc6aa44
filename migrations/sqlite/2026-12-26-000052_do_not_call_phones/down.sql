ALTER TABLE leads DROP COLUMN do_not_call_phones;
