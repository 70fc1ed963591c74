-- A transactional handler's timeout, enforced by the server for the rest of the job's transaction:
-- a hung statement is cancelled cleanly (SQLSTATE 57014) instead of the connection being broken.
-- Parameters: the timeout in milliseconds, as text.
SELECT set_config('statement_timeout', ?, true)
