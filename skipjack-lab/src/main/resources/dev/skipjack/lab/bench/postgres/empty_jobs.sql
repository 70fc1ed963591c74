-- Empties the bench schema's jobs table between runs, so every run starts from an empty queue.
-- CASCADE: the job reports' tables (V011) reference it, and are emptied with it.
TRUNCATE {{jobs}} CASCADE
