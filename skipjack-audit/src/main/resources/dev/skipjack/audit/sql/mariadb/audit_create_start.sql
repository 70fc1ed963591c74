-- The start signal of multi-process enqueue runs: empty until the test inserts one row, which
-- every process polls for (audit_started.sql), so all of them begin within one poll of each other.
CREATE TABLE IF NOT EXISTS {{audit_start}} (
    released INT NOT NULL
) ENGINE = InnoDB
