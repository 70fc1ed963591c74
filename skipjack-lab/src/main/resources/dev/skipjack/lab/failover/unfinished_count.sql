-- Jobs not yet in a terminal state, while the run waits for the queue to drain.
-- Index: jobs_claim_idx and jobs_due_idx cover most unfinished rows; a small table.
SELECT count(*) FROM {{jobs}} WHERE state NOT IN ('completed', 'discarded', 'cancelled')
