-- depth: adds terminal rows, nine completed for one discarded (with an error), finished just now so
-- that retention pruning, if it runs, leaves them alone during the benchmark. Generated server-side.
-- Index: maintains the primary key only; terminal rows are in none of the partial indexes.
-- Parameters: queue, kind, first n, end n (exclusive).
INSERT INTO {{jobs}} (queue, kind, args, state, attempt, attempted_at, finished_at, errors)
SELECT ?, ?, jsonb_build_object('n', g),
       CASE WHEN g % 10 = 0 THEN 'discarded' ELSE 'completed' END,
       1,
       now(),
       now(),
       CASE WHEN g % 10 = 0
            THEN jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now(), 'error', 'bench filler'))
            ELSE '[]'::jsonb END
FROM generate_series(?::bigint, ? - 1) AS g
