package dev.skipjack.internal.sql;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.SkipjackException;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.PreparedStatement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * What SQLite connections must be for many threads of one process to share a database, checked
 * on one connection of the DataSource at build (a pool's connections share one configuration):
 * <ul>
 *   <li>transactions begin {@code IMMEDIATE}: a deferred transaction that reads and then writes
 *       fails at once with SQLITE_BUSY_SNAPSHOT under WAL, and the busy timeout does not help;</li>
 *   <li>a busy timeout of at least a second: writers queue for the one write lock;</li>
 *   <li>a file database in WAL mode (readers never wait for the writer), or an in-memory database
 *       every connection of the process shares with normal locking ({@code file:/name?vfs=memdb});
 *       plain {@code :memory:} gives each connection its own empty database, and shared-cache
 *       memory databases answer lock conflicts with SQLITE_LOCKED, which the busy timeout ignores;</li>
 *   <li>the schema is a database of the connection ({@code main}, or one it attached);</li>
 *   <li>connections come in auto-commit: with it off, sqlite-jdbc holds an IMMEDIATE transaction,
 *       and so the write lock, on every idle connection of the pool.</li>
 * </ul>
 * Checked and refused rather than set per connection: the application's own transactions (a
 * transactional enqueue, its writes beside Skipjack's) need the same settings, and Skipjack does
 * not change pooled connections behind the pool's back. The settings are sqlite-jdbc's, so this
 * class uses the driver's types (as does {@link SqliteDialect#abandon}); it is loaded only on SQLite.
 */
final class SqliteSettings {

    /** The shortest busy timeout accepted, in milliseconds. */
    static final int MIN_BUSY_TIMEOUT_MS = 1_000;
    private static final String SETTINGS_QUERY = "sql/sqlite/connection_settings.sql";
    private static final String RECIPE = " (e.g. jdbc:sqlite:/path/app.db?journal_mode=WAL&busy_timeout=10000"
            + "&transaction_mode=IMMEDIATE, or the same on SQLiteConfig; see docs/backends.md)";

    private SqliteSettings() {
    }

    static void check(DataSource dataSource, String schema) {
        try (Connection c = dataSource.getConnection()) {
            check(c, schema);
        } catch (SQLException e) {
            throw new SkipjackException("could not check the SQLite connection's settings: " + e.getMessage(), e);
        }
    }

    private static void check(Connection c, String schema) throws SQLException {
        SQLiteConnection sqlite = sqliteJdbc(c);
        SQLiteConfig.TransactionMode mode = sqlite.getConnectionConfig().getTransactionMode();
        if (mode != SQLiteConfig.TransactionMode.IMMEDIATE && mode != SQLiteConfig.TransactionMode.EXCLUSIVE) {
            throw new InvalidConfigurationException("dataSource", "SQLite connections must begin transactions IMMEDIATE,"
                    + " not " + mode + ": a deferred transaction that reads and then writes fails with"
                    + " SQLITE_BUSY_SNAPSHOT while another thread writes; set transaction_mode=IMMEDIATE" + RECIPE);
        }
        if (!c.getAutoCommit()) {
            throw new InvalidConfigurationException("dataSource", "SQLite connections must come from the DataSource"
                    + " in auto-commit mode: with auto-commit off, sqlite-jdbc begins an IMMEDIATE transaction at once"
                    + " and the next one at every commit() and rollback(), so each pooled connection idles holding the"
                    + " one write lock every other connection waits for; keep the pool's autoCommit=true (HikariCP's"
                    + " default)");
        }
        String url = c.getMetaData().getURL();
        try (PreparedStatement ps = c.prepareStatement(SqlStatements.readResource(SETTINGS_QUERY))) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new InvalidConfigurationException("schema", "the SQLite connection has no database named '"
                            + schema + "': SQLite has no schemas, Skipjack's tables go in the database file (schema"
                            + " 'main', the default) or in a database every connection attaches");
                }
                checkSettings(url, rs.getInt(1), rs.getString(2), rs.getString(3) == null ? "" : rs.getString(3));
            }
        }
    }

    private static void checkSettings(String url, int busyTimeout, String journal, String file) {
        if (busyTimeout < MIN_BUSY_TIMEOUT_MS) {
            throw new InvalidConfigurationException("dataSource", "SQLite connections need a busy timeout of at least "
                    + MIN_BUSY_TIMEOUT_MS + " ms so that writers wait for the write lock, got " + busyTimeout
                    + " ms; set busy_timeout=10000" + RECIPE);
        }
        if (file.isEmpty()) {
            if (!sharedMemdb(url)) {
                throw new InvalidConfigurationException("dataSource", "the in-memory SQLite database " + url
                        + " is not shared by all connections with normal locking: ':memory:' gives every connection its"
                        + " own empty database, and a shared-cache one (mode=memory&cache=shared) fails lock conflicts"
                        + " at once; use jdbc:sqlite:file:/NAME?vfs=memdb (the leading '/' shares it within this"
                        + " process), or a file");
            }
            return;
        }
        if (!"wal".equalsIgnoreCase(journal)) {
            throw new InvalidConfigurationException("dataSource", "the SQLite database " + file + " is in journal mode "
                    + journal + ", not WAL: without WAL every reader blocks the writer; set journal_mode=WAL" + RECIPE);
        }
    }

    private static SQLiteConnection sqliteJdbc(Connection c) throws SQLException {
        try {
            if (c.isWrapperFor(SQLiteConnection.class)) {
                return c.unwrap(SQLiteConnection.class);
            }
        } catch (NoClassDefFoundError e) {
            // another SQLite driver, without sqlite-jdbc on the class path
        }
        throw new InvalidConfigurationException("dataSource", "Skipjack runs on SQLite through xerial sqlite-jdbc"
                + " (org.xerial:sqlite-jdbc), whose settings it checks; the DataSource's connections are "
                + c.getClass().getName());
    }

    /** {@code file:/name?...vfs=memdb...}: one in-memory database for every connection of the process. */
    static boolean sharedMemdb(String url) {
        String u = url == null ? "" : url.toLowerCase(Locale.ROOT);
        return u.startsWith("jdbc:sqlite:file:/") && u.matches(".*[?&]vfs=memdb(&.*)?") && !u.contains("cache=shared");
    }
}
