package dev.skipjack.cli;

import picocli.CommandLine;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A database named the way users have it at hand, turned into what the JDBC driver wants. Accepts
 * {@code jdbc:sqlite:...} with Skipjack's required settings added, {@code jdbc:postgresql://...},
 * {@code jdbc:mariadb://...} and {@code jdbc:mysql://...} unchanged (the MariaDB driver, which the CLI
 * carries, speaks to both) and the libpq/Heroku form
 * {@code postgres://user:password@host:port/database?params} (also {@code postgresql://}),
 * whose credentials are taken out of the URL and passed as connection properties.
 *
 * @param jdbcUrl  the URL for the driver, without the credentials of a libpq URL
 * @param user     the user from a libpq URL; null when the URL names none (or is a JDBC URL)
 * @param password the password from a libpq URL; null when the URL names none (or is a JDBC URL)
 */
public record DatabaseUrl(String jdbcUrl, String user, String password) {

    /** JDBC URLs passed to their driver unchanged. */
    private static final List<String> JDBC_PREFIXES = List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:");
    private static final String SQLITE_PREFIX = "jdbc:sqlite:";
    /** The settings Skipjack requires of SQLite connections (docs/backends.md), added where the URL sets none. */
    private static final String[][] SQLITE_SETTINGS = {
            {"journal_mode", "WAL"}, {"busy_timeout", "10000"}, {"transaction_mode", "IMMEDIATE"}};
    private static final String ACCEPTED_FORMS = "use jdbc:postgresql://host:port/database,"
            + " postgres://user:password@host:port/database, jdbc:mariadb://host:port/database (or jdbc:mysql:)"
            + " or jdbc:sqlite:/path/to/file.db";

    /** Whether this is a SQLite database (a file, or a shared in-memory one). */
    public boolean isSqlite() {
        return jdbcUrl.toLowerCase(Locale.ROOT).startsWith(SQLITE_PREFIX);
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
        if (JDBC_PREFIXES.stream().anyMatch(lower::startsWith)) {
            // The driver understands its own URLs best, including forms URI would reject (multiple hosts).
            return new DatabaseUrl(trimmed, null, null);
        }
        if (lower.startsWith(SQLITE_PREFIX)) {
            return new DatabaseUrl(withSqliteSettings(trimmed), null, null);
        }
        if (lower.startsWith("jdbc:")) {
            throw new IllegalArgumentException("unsupported database URL " + redact(trimmed)
                    + ": Skipjack's CLI works with PostgreSQL, MariaDB/MySQL and SQLite; " + ACCEPTED_FORMS);
        }
        if (lower.startsWith("postgres://") || lower.startsWith("postgresql://")) {
            return fromLibpqUrl(trimmed);
        }
        throw new IllegalArgumentException("unsupported database URL " + redact(trimmed) + "; " + ACCEPTED_FORMS);
    }

    private static DatabaseUrl fromLibpqUrl(String url) {
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
                    + " give one host as postgres://user:password@host:port/database"
                    + " (for several hosts or a Unix socket, use a jdbc:postgresql: URL)");
        }
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
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
     * Masks the password of a libpq URL's user info and of a {@code password=} parameter. The user
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
