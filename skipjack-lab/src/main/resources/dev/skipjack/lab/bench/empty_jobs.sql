-- Empties the bench schema's jobs table between runs, so every run starts from an empty queue.
TRUNCATE {{jobs}}
