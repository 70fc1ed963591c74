-- Raw LISTEN/NOTIFY ceiling on PostgreSQL, the listener's subscription (a channel name cannot be a bind
-- parameter: the bench's own constant, a valid identifier, is quoted in).
LISTEN "skipjack_bench_raw"
