-- On the primary while a standby is being built: an immediate checkpoint. pg_basebackup (which
-- pg_autoctl runs to make a standby) starts with a spread checkpoint that can take minutes
-- (checkpoint_completion_target of checkpoint_timeout); a requested immediate one ends it at once.
-- Index: none.
CHECKPOINT
