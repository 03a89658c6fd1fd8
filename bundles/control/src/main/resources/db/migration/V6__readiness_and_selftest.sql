-- Issue 30 item 5: the appliance's readiness check (free disk, outbox, probes: MQTT
-- `readiness`) keeps its own name, and `selftest` is from now on the measuring chain's
-- self-test (MQTT `selftest`: a stall injected and found), kept with the run for its record.
-- What was stored as `selftest` until now was the readiness check: it moves.
ALTER TABLE run ADD COLUMN readiness ${text};
ALTER TABLE run ADD COLUMN readiness_ms BIGINT;
ALTER TABLE run ADD COLUMN readiness_ok BOOLEAN;
UPDATE run SET readiness = selftest, readiness_ms = selftest_ms, readiness_ok = selftest_ok;
UPDATE run SET selftest = NULL, selftest_ms = NULL, selftest_ok = NULL;
ALTER TABLE appliance ADD COLUMN readiness ${text};
ALTER TABLE appliance ADD COLUMN readiness_ms BIGINT;
ALTER TABLE appliance ADD COLUMN readiness_ok BOOLEAN;
UPDATE appliance SET readiness = selftest, readiness_ms = selftest_ms, readiness_ok = selftest_ok;
UPDATE appliance SET selftest = NULL, selftest_ms = NULL, selftest_ok = NULL;
