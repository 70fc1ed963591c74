-- Takes or renews leadership of a role in one statement: inserts the row, or takes it over when
-- this node already holds it or the holder's lease ran out (database clock). Returns a row only
-- when this node is the leader until lease_until.
-- Index: primary key (name).
-- Parameters: role, holder (worker id), lease in milliseconds.
INSERT INTO {{schema}}."{{prefix}}leader" AS l (name, holder, lease_until)
VALUES (?, ?, {{now}} + ? * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE
    SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until
    WHERE l.holder = EXCLUDED.holder OR l.lease_until < {{now}}
RETURNING l.holder
