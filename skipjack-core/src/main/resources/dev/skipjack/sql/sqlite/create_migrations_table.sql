-- Which migrations this schema and prefix have had.
CREATE TABLE IF NOT EXISTS {{migrations}} (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL DEFAULT (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000)
)
