-- The schema Skipjack's tables live in; a no-op when it exists.
CREATE SCHEMA IF NOT EXISTS {{schema}}
