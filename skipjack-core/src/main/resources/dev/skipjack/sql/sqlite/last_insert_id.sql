-- The id of the last row this connection inserted: with insert_jobs.sql and
-- insert_jobs_uniform.sql, whose rows get consecutive ids under the one write lock, the last of a
-- batch's ids. A trigger's inserts do not change it once the trigger ends.
SELECT last_insert_rowid()
