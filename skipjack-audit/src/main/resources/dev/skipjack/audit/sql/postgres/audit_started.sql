-- Whether the start signal is there (the table holds at most one row).
-- Index: none (scanned whole).
SELECT count(*) FROM {{audit_start}}
