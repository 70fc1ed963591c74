-- Records one applied migration, in the transaction that applied it.
-- Parameters: version, name.
INSERT INTO {{migrations}} (version, name) VALUES (?, ?)
