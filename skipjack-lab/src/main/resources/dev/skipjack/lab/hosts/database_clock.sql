-- hosts: the database's clock now, to time the cut and its recovery on the clock the jobs'
-- times are on.
SELECT clock_timestamp()
