-- Diagnostics: the faults the run recorded for the audit checker, in order.
-- Index: none; a few rows.
SELECT worker, kind, at FROM {{audit_faults}} ORDER BY id
