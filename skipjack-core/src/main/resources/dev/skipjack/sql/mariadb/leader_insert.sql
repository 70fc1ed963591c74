-- Creates the leadership row of a role that has none. INSERT IGNORE: of two nodes racing, one
-- inserts (1 row) and the other finds the key taken (0 rows) and is not the leader this round.
-- Index: primary key (name).
-- Parameters: role, holder, term in milliseconds.
INSERT IGNORE INTO {{schema}}.`{{prefix}}leader` (name, holder, lease_until)
VALUES (?, ?, {{now}} + INTERVAL (? * 1000) MICROSECOND)
