package dev.skipjack.internal.sql;

import dev.skipjack.Backend;
import dev.skipjack.SkipjackException;
import dev.skipjack.UnsupportedDatabaseException;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Tells which backend a DataSource leads to (F-24), before Skipjack runs any statement of its own:
 * the driver's metadata names the product, and for the MySQL family {@code SELECT VERSION()} tells
 * MariaDB from MySQL and gives the real version (see {@link ServerVersion}). Anything Skipjack
 * cannot run on is refused here with one {@link UnsupportedDatabaseException}.
 */
public final class DatabaseDetector {

    /** What was found: the backend and the server's version. */
    public record Detected(Backend backend, ServerVersion version) {
    }

    private static final String VERSION_QUERY = "sql/detect/server_version.sql";

    private DatabaseDetector() {
    }

    /**
     * Opens one connection and identifies the database.
     *
     * @throws UnsupportedDatabaseException for a product or version Skipjack cannot run on
     * @throws SkipjackException           when no connection can be opened
     */
    public static Detected detect(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return detect(c);
        } catch (SQLException e) {
            throw new SkipjackException("could not connect to tell which database the DataSource leads to: "
                    + e.getMessage(), e);
        }
    }

    static Detected detect(Connection c) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String product = md.getDatabaseProductName();
        String reported = md.getDatabaseProductVersion();
        String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return postgres(product, versionText(c, reported), md.getDatabaseMajorVersion(), md.getDatabaseMinorVersion());
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return mysqlFamily(product, versionText(c, reported));
        }
        if (name.contains("sqlite")) {
            return sqlite(product, reported);
        }
        throw new UnsupportedDatabaseException(product, reported, "Skipjack needs FOR UPDATE SKIP LOCKED"
                + " (or SQLite's single writer) and has statements only for the databases below");
    }

    /** A server whose driver says PostgreSQL; {@code versionText} is its {@code version()}. */
    static Detected postgres(String product, String versionText, int major, int minor) {
        if (versionText.contains("CockroachDB") || versionText.contains("-YB-")) {
            // They answer as PostgreSQL, but Skipjack's statements were never run on them and some
            // would behave differently (docs/scaling.md: SKIP LOCKED under SERIALIZABLE, advisory
            // locks and LISTEN/NOTIFY behind flags or missing, ids out of insertion order).
            throw new UnsupportedDatabaseException(product, versionText, "this PostgreSQL-compatible engine is not"
                    + " supported: Skipjack's PostgreSQL statements are untested on it and some of what they rely on"
                    + " (SKIP LOCKED semantics, advisory locks, LISTEN/NOTIFY, ordered ids) differs there;"
                    + " see docs/scaling.md");
        }
        return require(Backend.POSTGRESQL, product, major + "." + minor, new ServerVersion(major, minor, 0, false));
    }

    /**
     * A server whose driver says MySQL or MariaDB; {@code versionText} is its {@code VERSION()}.
     * The text, not the driver's product name, tells MariaDB from MySQL.
     */
    static Detected mysqlFamily(String product, String versionText) {
        ServerVersion version = ServerVersion.parse(versionText);
        Backend backend = version.mariaDb() ? Backend.MARIADB : Backend.MYSQL;
        return require(backend, backend.productName(), versionText, version);
    }

    /** A database whose driver says SQLite; {@code version} is the library's, e.g. {@code 3.54.1}. */
    static Detected sqlite(String product, String version) {
        return require(Backend.SQLITE, product, version, ServerVersion.parse(version));
    }

    private static Detected require(Backend backend, String product, String reported, ServerVersion version) {
        if (!version.atLeast(backend.minimumVersion())) {
            throw new UnsupportedDatabaseException(product, reported, backend.productName() + " "
                    + backend.minimumVersion() + " or later is needed (" + reasonForMinimum(backend) + ")");
        }
        return new Detected(backend, version);
    }

    private static String reasonForMinimum(Backend backend) {
        return switch (backend) {
            case POSTGRESQL -> "older majors are out of support and untested";
            case MARIADB -> "SKIP LOCKED arrived in 10.6";
            case MYSQL -> "SKIP LOCKED arrived in 8.0";
            case SQLITE -> "RETURNING arrived in 3.35";
        };
    }

    /** The server's own version text, falling back to the driver's when the query fails. */
    private static String versionText(Connection c, String reported) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(SqlStatements.readResource(VERSION_QUERY))) {
            return rs.next() && rs.getString(1) != null ? rs.getString(1) : reported;
        } finally {
            if (!autoCommit) {
                // A pool may hand out connections in manual-commit mode: leave no transaction open.
                c.rollback();
            }
        }
    }
}
