-- Faults the test driver injected, so the checker can tell an explained second execution (its
-- earlier worker was killed, cut off, stopped) from an unexplained one. worker '*' means every
-- worker. at is INTEGER epoch microseconds on the database clock. Small table: scanned whole.
CREATE TABLE IF NOT EXISTS {{audit_faults}} (
    id     INTEGER PRIMARY KEY,
    worker TEXT    NOT NULL,
    kind   TEXT    NOT NULL,
    at     INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000)
)
