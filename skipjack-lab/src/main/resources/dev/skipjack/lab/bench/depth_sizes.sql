-- depth: the jobs table's size and each of its indexes', to show the claim index stays small.
-- Parameters: the jobs table's qualified name.
SELECT c.relname, pg_relation_size(i.indexrelid)
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = ?::regclass
UNION ALL
SELECT 'table', pg_relation_size(?::regclass)
