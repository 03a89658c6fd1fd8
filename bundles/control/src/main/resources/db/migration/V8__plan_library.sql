-- The plan library (issue 32): every version of every plan, never changed or deleted, so
-- that an old version stays runnable and a run's plan SHA-256 can be looked up. source:
-- 'shipped' (rtbox's plans/, in the bundle), 'folder' (the plansDir folder), 'saved'
-- (uploaded, pasted or edited in the control room by created_by).
CREATE TABLE plan_version (
    name VARCHAR(100) NOT NULL,
    version INTEGER NOT NULL,
    sha256 VARCHAR(64) NOT NULL,
    body ${text} NOT NULL,
    created_ms BIGINT NOT NULL,
    created_by VARCHAR(64) NOT NULL,
    source VARCHAR(16) NOT NULL,
    PRIMARY KEY (name, version)
);
