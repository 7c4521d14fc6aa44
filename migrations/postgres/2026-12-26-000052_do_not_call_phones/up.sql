-- The numbers not to call on a lead (the owner asked, or an imported file's per-number flag named them; E.164, a
-- JSON array of strings, oldest first): taken off its phones, and left out when a submission, an import or a
-- merge of leads brings one again.
ALTER TABLE leads ADD COLUMN do_not_call_phones TEXT NOT NULL DEFAULT '[]';
