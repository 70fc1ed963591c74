-- Records an injected fault against a worker ('*' for all) at the database clock.
-- Index: none (insert).
-- Parameters: worker, kind.
INSERT INTO {{audit_faults}} (worker, kind) VALUES (?, ?)
