-- The connection settings SqliteSettings checks at build: busy timeout (ms), journal mode, and the
-- file of the database Skipjack's tables go in ('' in memory, no row when it is not attached).
-- Parameters: the schema (a database name of the connection: 'main' or an attached one).
SELECT (SELECT * FROM pragma_busy_timeout),
       (SELECT journal_mode FROM pragma_journal_mode),
       d.file
FROM pragma_database_list AS d
WHERE d.name = ?
