package dev.skipjack.internal.sql;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server version read from the server's own version text, not from the driver's metadata:
 * MariaDB 10.x handshakes as {@code 5.5.5-10.11.6-MariaDB}, so MySQL Connector/J reports product
 * "MySQL", major version 5, for it (MariaDB 11.0+ dropped the prefix, MDEV-28910).
 *
 * @param mariaDb whether the text names MariaDB
 */
public record ServerVersion(int major, int minor, int patch, boolean mariaDb) implements Comparable<ServerVersion> {

    /** The replication-compatibility prefix MariaDB 10.x puts before its real version. */
    private static final String MARIADB_HANDSHAKE_PREFIX = "5.5.5-";
    private static final Pattern NUMBERS = Pattern.compile("(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?");

    /**
     * Parses the text of {@code SELECT VERSION()} (MySQL family) or a driver's product version, e.g.
     * {@code 8.0.36-0ubuntu0.22.04.1}, {@code 5.5.5-10.11.6-MariaDB-0+deb12u1}, {@code 11.4.5-MariaDB},
     * {@code 3.54.1}.
     *
     * @throws IllegalArgumentException when the text starts with no version number
     */
    public static ServerVersion parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no version text");
        }
        String trimmed = text.trim();
        boolean mariaDb = trimmed.toLowerCase(java.util.Locale.ROOT).contains("mariadb");
        if (mariaDb && trimmed.startsWith(MARIADB_HANDSHAKE_PREFIX)) {
            trimmed = trimmed.substring(MARIADB_HANDSHAKE_PREFIX.length());
        }
        Matcher m = NUMBERS.matcher(trimmed);
        if (!m.lookingAt()) {
            throw new IllegalArgumentException("not a version: '" + text + "'");
        }
        return new ServerVersion(Integer.parseInt(m.group(1)), number(m.group(2)), number(m.group(3)), mariaDb);
    }

    /** Whether this version is at least {@code minimum}, e.g. {@code "10.6"}. */
    public boolean atLeast(String minimum) {
        ServerVersion min = parse(minimum);
        return compareTo(min) >= 0;
    }

    @Override
    public int compareTo(ServerVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    private static int number(String group) {
        return group == null ? 0 : Integer.parseInt(group);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
