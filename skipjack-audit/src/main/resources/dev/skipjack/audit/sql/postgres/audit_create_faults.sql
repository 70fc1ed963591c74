-- Faults the test or chaos driver injected, so the checker can tell an explained second execution
-- (its earlier worker was killed, cut off, stopped) from an unexplained one. worker '*' means every
-- worker (a database restart). Small table: scanned whole.
CREATE TABLE IF NOT EXISTS {{audit_faults}} (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    worker text        NOT NULL,
    kind   text        NOT NULL,
    at     timestamptz NOT NULL DEFAULT clock_timestamp()
)
