-- The morning e-mail names the leads given to each person since the day before
-- (lead::work::digest): the assignment entries of the timeline by time. Only assignment entries
-- are in it, so no other timeline write pays for it.
CREATE INDEX lead_activity_assigned ON lead_activity(created_at, lead_id) WHERE kind = 'assigned';
