package dev.skipjack.cli;

import dev.skipjack.Backend;
import picocli.CommandLine;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A database named the way users have it at hand, turned into what the JDBC driver wants. Accepts
 * {@code jdbc:sqlite:...} with Skipjack's required settings added, {@code jdbc:postgresql://...}
 * unchanged, {@code jdbc:mariadb://...} and {@code jdbc:mysql://...} as the MariaDB driver (the
 * only one the CLI ships) needs them ({@link #forMariaDbDriver}), and the URL forms
 * {@code postgres://user:password@host:port/database?params} (libpq/Heroku; also
 * {@code postgresql://}), {@code mariadb://...} and {@code mysql://...}, whose credentials are taken
 * out of the URL and passed as connection properties.
 *
 * @param jdbcUrl  the URL for the driver, without the credentials of a short-form URL
 * @param user     the user from a short-form URL; null when the URL names none (or is a JDBC URL)
 * @param password the password from a short-form URL; null when the URL names none (or is a JDBC URL)
 */
public record DatabaseUrl(String jdbcUrl, String user, String password) {

    private static final String JDBC_PREFIX = "jdbc:postgresql:";
    private static final String SQLITE_PREFIX = "jdbc:sqlite:";
    private static final String MARIADB_PREFIX = "jdbc:mariadb:";
    private static final String MYSQL_PREFIX = "jdbc:mysql:";
    /** The MariaDB driver takes {@code jdbc:mysql:} URLs only with this option (Connector/J 3.0+). */
    private static final String PERMIT_MYSQL_SCHEME = "permitMysqlScheme";
    /** The database of a MariaDB/MySQL JDBC URL: the path after the host list, before any options. */
    /** The host of a one-host MariaDB/MySQL JDBC URL when it is the loopback interface. */
    private static final Pattern MYSQL_FAMILY_LOOPBACK =
            Pattern.compile("(?i)^jdbc:(?:mariadb|mysql)://(?:localhost|127(?:\\.\\d{1,3}){3}|\\[::1])(?::\\d+)?(?:[/?]|$)");
    private static final Pattern MYSQL_FAMILY_DATABASE =
            Pattern.compile("(?i)^jdbc:(?:mariadb|mysql):(?:[a-z]+:)?//[^/?]*/([^?;&]+)");
    /** The settings Skipjack requires of SQLite connections (docs/backends.md), added where the URL sets none. */
    private static final String[][] SQLITE_SETTINGS = {
            {"journal_mode", "WAL"}, {"busy_timeout", "10000"}, {"transaction_mode", "IMMEDIATE"}};
    private static final String ACCEPTED_FORMS = "use jdbc:postgresql://host:port/database,"
            + " postgres://user:password@host:port/database, jdbc:mariadb://host:port/database (or jdbc:mysql:),"
            + " mariadb://user:password@host:port/database (or mysql://) or jdbc:sqlite:/path/to/file.db";

    /** Whether this is a SQLite database (a file, or a shared in-memory one). */
    public boolean isSqlite() {
        return jdbcUrl.toLowerCase(Locale.ROOT).startsWith(SQLITE_PREFIX);
    }

    /** Whether this is a MariaDB or MySQL database (where a schema is a database). */
    public boolean isMySqlFamily() {
        String lower = jdbcUrl.toLowerCase(Locale.ROOT);
        return lower.startsWith(MARIADB_PREFIX) || lower.startsWith(MYSQL_PREFIX);
    }

    /**
     * The backend the URL's scheme names; the server decides in the end (Skipjack detects it), so
     * a {@code jdbc:mariadb:} URL on a MySQL server is still run as MySQL by the client.
     */
    public Backend backend() {
        String lower = jdbcUrl.toLowerCase(Locale.ROOT);
        if (isSqlite()) {
            return Backend.SQLITE;
        }
        if (lower.startsWith(MARIADB_PREFIX)) {
            return Backend.MARIADB;
        }
        return lower.startsWith(MYSQL_PREFIX) ? Backend.MYSQL : Backend.POSTGRESQL;
    }

    /** The database a MariaDB/MySQL URL names (Skipjack's default schema there); empty when it names none. */
    public Optional<String> mySqlFamilyDatabase() {
        Matcher m = MYSQL_FAMILY_DATABASE.matcher(jdbcUrl);
        return isMySqlFamily() && m.find() ? Optional.of(percentDecode(m.group(1))) : Optional.empty();
    }

    /**
     * A SQLite URL with the connection settings Skipjack requires (WAL, a busy timeout, IMMEDIATE
     * transactions) added where the URL does not set them; an in-memory database keeps its own
     * journal mode. The CLI builds its own DataSource, so it follows the recipe for the user.
     */
    static String withSqliteSettings(String url) {
        StringBuilder out = new StringBuilder(url);
        String lower = url.toLowerCase(Locale.ROOT);
        boolean inMemory = lower.contains(":memory:") || lower.contains("vfs=memdb") || lower.contains("mode=memory");
        for (String[] setting : SQLITE_SETTINGS) {
            if (lower.contains(setting[0] + "=") || (inMemory && setting[0].equals("journal_mode"))) {
                continue;
            }
            out.append(out.indexOf("?") < 0 ? '?' : '&').append(setting[0]).append('=').append(setting[1]);
        }
        return out.toString();
    }

    /** Parses {@code url}; throws {@link IllegalArgumentException} saying what is wrong with it. */
    public static DatabaseUrl parse(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("the database URL is empty; " + ACCEPTED_FORMS);
        }
        String trimmed = url.trim();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (lower.startsWith(JDBC_PREFIX)) {
            // The driver understands its own URLs best, including forms URI would reject (multiple hosts).
            return new DatabaseUrl(trimmed, null, null);
        }
        if (lower.startsWith(MARIADB_PREFIX) || lower.startsWith(MYSQL_PREFIX)) {
            return new DatabaseUrl(forMariaDbDriver(trimmed), null, null);
        }
        if (lower.startsWith(SQLITE_PREFIX)) {
            return new DatabaseUrl(withSqliteSettings(trimmed), null, null);
        }
        if (lower.startsWith("jdbc:")) {
            throw new IllegalArgumentException("unsupported database URL " + redact(trimmed)
                    + ": Skipjack's CLI works with PostgreSQL, MariaDB, MySQL and SQLite; " + ACCEPTED_FORMS);
        }
        if (lower.startsWith("postgres://") || lower.startsWith("postgresql://")) {
            return fromShortUrl(trimmed, "jdbc:postgresql://", "jdbc:postgresql:");
        }
        if (lower.startsWith("mariadb://") || lower.startsWith("mysql://")) {
            String scheme = lower.startsWith("mysql://") ? "jdbc:mysql:" : "jdbc:mariadb:";
            DatabaseUrl parsed = fromShortUrl(trimmed, scheme + "//", scheme);
            return new DatabaseUrl(forMariaDbDriver(parsed.jdbcUrl()), parsed.user(), parsed.password());
        }
        throw new IllegalArgumentException("unsupported database URL " + redact(trimmed) + "; " + ACCEPTED_FORMS);
    }

    /**
     * A MariaDB/MySQL URL as the MariaDB driver (the one the CLI ships) needs it: a
     * {@code jdbc:mysql:} URL gets {@code permitMysqlScheme}, without which the driver refuses it;
     * a URL on the loopback interface that says nothing of TLS gets {@code sslMode=disable}, since
     * the driver requires TLS by default and a local server (a development one, a test one) rarely
     * has it. Anything the URL sets is left alone; other hosts keep the driver's TLS default.
     */
    static String forMariaDbDriver(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        String out = url;
        if (lower.startsWith(MYSQL_PREFIX) && !lower.contains(PERMIT_MYSQL_SCHEME.toLowerCase(Locale.ROOT))) {
            out += (out.indexOf('?') < 0 ? '?' : '&') + PERMIT_MYSQL_SCHEME;
        }
        if (MYSQL_FAMILY_LOOPBACK.matcher(url).find() && !lower.contains("sslmode=") && !lower.contains("usessl=")) {
            out += (out.indexOf('?') < 0 ? '?' : '&') + "sslMode=disable";
        }
        return out;
    }

    /**
     * A {@code scheme://user:password@host:port/database?params} URL as {@code jdbcScheme} plus the
     * rest, with the credentials taken out; {@code jdbcForm} names the JDBC URL to use instead for
     * what one host cannot say.
     */
    private static DatabaseUrl fromShortUrl(String url, String jdbcScheme, String jdbcForm) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("malformed database URL " + redact(url) + ": " + e.getReason()
                    + " at index " + e.getIndex() + " (special characters in the password must be %-encoded)");
        }
        if (uri.getHost() == null) {
            // URI leaves host null for a missing host, several hosts, or user info it cannot split.
            throw new IllegalArgumentException("database URL " + redact(url) + " names no host it can read;"
                    + " give one host as " + uri.getScheme() + "://user:password@host:port/database"
                    + " (for several hosts or a Unix socket, use a " + jdbcForm + " URL)");
        }
        StringBuilder jdbc = new StringBuilder(jdbcScheme).append(uri.getHost());
        if (uri.getPort() != -1) {
            jdbc.append(':').append(uri.getPort());
        }
        // Raw forms keep the %-encoding, which the JDBC URL needs too.
        jdbc.append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath());
        if (uri.getRawQuery() != null) {
            jdbc.append('?').append(uri.getRawQuery());
        }
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            // Split before decoding: an encoded ':' (%3A) belongs to the user name or password.
            int colon = userInfo.indexOf(':');
            user = percentDecode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? null : percentDecode(userInfo.substring(colon + 1));
        }
        return new DatabaseUrl(jdbc.toString(), user, password);
    }

    /** Decodes %XX escapes only; unlike form encoding, '+' in a URL is a plus sign. */
    private static String percentDecode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** The URL for messages: the driver URL, any password in it masked, and the user it connects as. */
    public String displayName() {
        return redact(jdbcUrl) + (user != null ? " as " + user : "");
    }

    /**
     * Masks the password of a short-form URL's user info and of a {@code password=} parameter. The user
     * info mask runs to the last '@', so a password with an unencoded '@' or '/' is masked whole.
     */
    static String redact(String url) {
        return url.replaceAll("(://[^/@:]*:).*@", "$1***@")
                .replaceAll("(?i)([?&]password=)[^&]*", "$1***");
    }

    @Override
    public String toString() {
        return displayName();
    }

    /**
     * Lets picocli turn {@code --url} (and its environment default) into a DatabaseUrl with a clear
     * error. A blank value means no database, as an exported but empty variable usually does.
     */
    static final class Converter implements CommandLine.ITypeConverter<DatabaseUrl> {
        @Override
        public DatabaseUrl convert(String value) {
            if (value.isBlank()) {
                return null;
            }
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
