ALTER TABLE leads DROP COLUMN wrong_phones;
