-- Two-phase mode (F-5): the resolver takes lock_external_call.sql's lock before it resolves an
-- orphaned prepared transaction. False while the worker that prepared it is alive (still in its
-- external call, or about to commit): its transaction is not an orphan, however old, and rolling
-- it back would let the job run again beside that call.
-- Parameters: global id.
SELECT pg_try_advisory_lock(hashtextextended(?, 0))
