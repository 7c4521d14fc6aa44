-- The numbers a contact found to be wrong on a lead (E.164, a JSON array of strings, oldest first):
-- taken off its phones, and left out when a submission, an import or a merge of leads brings one again.
ALTER TABLE leads ADD COLUMN wrong_phones TEXT NOT NULL DEFAULT '[]';
