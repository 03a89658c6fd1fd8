-- A run's site, and each message's site and run time (H2, the embedded default: no
-- partitions; PostgreSQL partitions message by them, postgresql/V2__site.sql).
-- site: the appliance's site (PUT /api/v1/appliances/ID) when the run's first message
-- came, '' when it had none; a run keeps it when the appliance moves later.
-- run_ms: the run's first_seen_ms, the same for every message of a run (and for a repeat).
ALTER TABLE run ADD COLUMN site VARCHAR(64) DEFAULT '' NOT NULL;
UPDATE run SET site = COALESCE((SELECT a.site FROM appliance a WHERE a.id = run.appliance), '');
ALTER TABLE message ADD COLUMN site VARCHAR(64) DEFAULT '' NOT NULL;
ALTER TABLE message ADD COLUMN run_ms BIGINT DEFAULT 0 NOT NULL;
UPDATE message SET
    site = COALESCE((SELECT r.site FROM run r WHERE r.appliance = message.appliance AND r.run_id = message.run_id), ''),
    run_ms = COALESCE((SELECT r.first_seen_ms FROM run r WHERE r.appliance = message.appliance
        AND r.run_id = message.run_id), received_ms);
