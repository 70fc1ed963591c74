-- Whether this server can prepare transactions at all: two-phase kinds need more than 0.
SELECT current_setting('max_prepared_transactions')::int
