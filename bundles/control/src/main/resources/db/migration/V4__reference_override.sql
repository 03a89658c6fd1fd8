-- A golden reference comes from a complete PASS run; one from any other run needs an
-- admin's reason, kept here and shown with the reference (issue 30).
ALTER TABLE golden ADD COLUMN override_reason VARCHAR(500);
