-- Takes or renews leadership of a role when the row is free, ours, or its lease has expired, on
-- the database clock; returns a row only when this holder leads now. One upsert: it runs under
-- the write lock, so two nodes racing see each other's row.
-- Index: primary key (name).
-- Parameters: role, holder, term in milliseconds.
INSERT INTO {{schema}}."{{prefix}}leader" AS l (name, holder, lease_until)
VALUES (?, ?, {{now}} + ? * 1000)
ON CONFLICT (name) DO UPDATE
    SET holder = excluded.holder, lease_until = excluded.lease_until
    WHERE l.holder = excluded.holder OR l.lease_until < {{now}}
RETURNING holder
