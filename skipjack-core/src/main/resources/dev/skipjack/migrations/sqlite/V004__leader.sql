-- Skipjack schema, version 4: leadership of periodic maintenance (rescuer, pruner).
-- One row per role; the holder keeps it by renewing lease_until (epoch microseconds) on the
-- database clock, in one upsert (leader_acquire.sql).
CREATE TABLE {{schema}}."{{prefix}}leader" (
    name        TEXT    PRIMARY KEY,
    holder      TEXT    NOT NULL,
    lease_until INTEGER NOT NULL
);
