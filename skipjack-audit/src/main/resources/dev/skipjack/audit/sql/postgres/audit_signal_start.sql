-- Starts every process waiting on audit_started.sql.
-- Index: none (insert).
INSERT INTO {{audit_start}} (released) VALUES (1)
