-- A user an admin disabled (issue 32: the users page): kept, with their audit trail and
-- records, but no log-in, no session and no API token works for them until enabled again.
-- NULL: enabled; else when it was disabled (epoch ms) and by whom.
ALTER TABLE users ADD COLUMN disabled_ms BIGINT;
ALTER TABLE users ADD COLUMN disabled_by VARCHAR(64);
