CREATE INDEX submissions_status ON submissions(status);
