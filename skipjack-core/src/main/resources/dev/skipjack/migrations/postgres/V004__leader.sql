-- Skipjack schema, version 4: leadership of periodic maintenance (rescuer, 2PC resolver, pruner).
-- One row per role; the holder keeps it by renewing lease_until on the database clock. Plain rows
-- and single statements, so it works behind PgBouncer in transaction mode (no session-level
-- advisory locks).
CREATE TABLE {{schema}}."{{prefix}}leader" (
    name        text        PRIMARY KEY,
    holder      text        NOT NULL,
    lease_until timestamptz NOT NULL
);
