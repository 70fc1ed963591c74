-- Records one applied migration.
-- Parameters: version, name.
INSERT INTO {{migrations}} (version, name) VALUES (?, ?)
