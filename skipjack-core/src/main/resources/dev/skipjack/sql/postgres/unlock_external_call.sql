-- Two-phase mode (F-5): releases lock_external_call.sql's lock once the prepared transaction is
-- committed or rolled back (the worker), or resolved (the resolver, which took it with
-- try_lock_external_call.sql).
-- Parameters: global id.
SELECT pg_advisory_unlock(hashtextextended(?, 0))
