-- Which migrations this schema and prefix have had.
CREATE TABLE IF NOT EXISTS {{migrations}} (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
