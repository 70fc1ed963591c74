-- Versions already applied.
SELECT version FROM {{migrations}}
