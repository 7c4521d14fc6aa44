-- A lead whose owner asked not to be called (or whose number a call centre must not dial): the
-- call lists leave it out and its page says so before its numbers.
ALTER TABLE leads ADD COLUMN do_not_call BOOLEAN NOT NULL DEFAULT FALSE;
