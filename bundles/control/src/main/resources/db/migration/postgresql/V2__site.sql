-- PostgreSQL: message partitioned by site (LIST), each site by month (RANGE on run_ms, UTC),
-- so that a site-month is detached or dropped as a whole when its retention ends
-- (docs/fleet.md). H2, the embedded default, has the same columns and no partitions
-- (h2/V2__site.sql).
-- run.site: the appliance's site (PUT /api/v1/appliances/ID) when the run's first message
-- came, '' when it had none; a run keeps it when the appliance moves later.
-- message.site and message.run_ms: the run's site and first_seen_ms, the same for every
-- message of a run, so a repeat has the same partition key as its first copy and the
-- primary key (which must hold the partition key) still makes it a no-op.
ALTER TABLE run ADD COLUMN site VARCHAR(64) DEFAULT '' NOT NULL;
UPDATE run SET site = COALESCE((SELECT a.site FROM appliance a WHERE a.id = run.appliance), '');

ALTER TABLE message RENAME TO message_v1;
ALTER TABLE message_v1 RENAME CONSTRAINT message_pkey TO message_v1_pkey;
CREATE TABLE message (
    appliance VARCHAR(64) NOT NULL,
    run_id VARCHAR(64) NOT NULL,
    seq INTEGER NOT NULL,
    type VARCHAR(16) NOT NULL,
    received_ms BIGINT NOT NULL,
    payload BYTEA NOT NULL,
    site VARCHAR(64) NOT NULL,
    run_ms BIGINT NOT NULL,
    PRIMARY KEY (appliance, run_id, seq, site, run_ms)
) PARTITION BY LIST (site);

-- The partition for (site, run_ms), created when missing: message_s_SLUG_HASH for the site
-- (SLUG: the site in lower case, [a-z0-9_], 24 characters at most; HASH: 8 hex digits of its
-- MD5, so that 'Plant 1' and 'plant_1' differ), message_s_SLUG_HASH_YYYYMM for its month.
-- The control room calls it before a batch's transaction (IngestStore); an advisory lock
-- keeps two instances from creating the same table at once.
CREATE FUNCTION rtbox_message_partition(p_site TEXT, p_run_ms BIGINT) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
    site_table TEXT := 'message_s_' || substr(regexp_replace(lower(p_site), '[^a-z0-9]+', '_', 'g'), 1, 24)
        || '_' || substr(md5(p_site), 1, 8);
    month_start TIMESTAMP := date_trunc('month', to_timestamp(p_run_ms / 1000.0) AT TIME ZONE 'UTC');
    month_table TEXT := site_table || '_' || to_char(month_start, 'YYYYMM');
    from_ms BIGINT := (extract(epoch FROM month_start AT TIME ZONE 'UTC') * 1000)::BIGINT;
    to_ms BIGINT := (extract(epoch FROM (month_start + interval '1 month') AT TIME ZONE 'UTC') * 1000)::BIGINT;
BEGIN
    IF to_regclass(month_table) IS NOT NULL THEN
        RETURN month_table;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('rtbox_message_partition'));
    IF to_regclass(site_table) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF message FOR VALUES IN (%L) PARTITION BY RANGE (run_ms)',
            site_table, p_site);
    END IF;
    IF to_regclass(month_table) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)', month_table, site_table,
            from_ms, to_ms);
    END IF;
    RETURN month_table;
END
$$;

-- The messages stored before, each in its run's partition.
DO $$
DECLARE
    r RECORD;
BEGIN
    FOR r IN SELECT DISTINCT COALESCE(run.site, '') AS site,
            (extract(epoch FROM date_trunc('month', to_timestamp(COALESCE(run.first_seen_ms, m.received_ms) / 1000.0)
                AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') * 1000)::BIGINT AS month_ms
            FROM message_v1 m LEFT JOIN run ON run.appliance = m.appliance AND run.run_id = m.run_id LOOP
        PERFORM rtbox_message_partition(r.site, r.month_ms);
    END LOOP;
END
$$;
INSERT INTO message (appliance, run_id, seq, type, received_ms, payload, site, run_ms)
    SELECT m.appliance, m.run_id, m.seq, m.type, m.received_ms, m.payload, COALESCE(run.site, ''),
        COALESCE(run.first_seen_ms, m.received_ms)
    FROM message_v1 m LEFT JOIN run ON run.appliance = m.appliance AND run.run_id = m.run_id;
DROP TABLE message_v1;
