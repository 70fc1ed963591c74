-- The failover probe: jobs completed so far on the server this connection reached, and its port,
-- so a count read on the new primary can be told from one read on the old.
-- Index: none; a count per probe round (every 250 ms), over a table of at most a few ten thousand rows.
SELECT count(*) FILTER (WHERE state = 'completed'), inet_server_port() FROM {{jobs}}
