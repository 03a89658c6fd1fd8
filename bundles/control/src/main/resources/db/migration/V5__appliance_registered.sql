-- An appliance the control room does not know lands as unregistered (issue 31: an
-- authenticated but unknown appliance user made a fleet entry with a fake PASS run): its
-- messages are stored, it is shown as unregistered, and its runs count for nothing (fleet
-- counts, runs list, records, references) until an admin accepts it (audited), or the
-- control room's configuration names it (appliancesFile). Appliances heard of before this
-- version were the fleet: they stay registered.
ALTER TABLE appliance ADD COLUMN registered BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE appliance ADD COLUMN registered_by VARCHAR(64);
ALTER TABLE appliance ADD COLUMN registered_ms BIGINT;
UPDATE appliance SET registered = TRUE, registered_by = '(before registration)';
