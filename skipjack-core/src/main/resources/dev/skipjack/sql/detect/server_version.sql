-- The server's own version text, read once at build time before a dialect is chosen: the MySQL
-- family's drivers misreport MariaDB 10.x as "MySQL 5.5.5", and PostgreSQL look-alikes name
-- themselves here. The same text works on PostgreSQL, MySQL and MariaDB.
SELECT VERSION()
