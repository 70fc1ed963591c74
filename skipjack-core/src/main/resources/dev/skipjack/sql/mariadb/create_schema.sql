-- The database Skipjack's tables live in (a schema is a database on this family); a no-op when it exists.
CREATE DATABASE IF NOT EXISTS {{schema}} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
