package dev.skipjack;

/**
 * The database families Skipjack runs on. {@link Skipjack.Builder#build()} detects the backend
 * from the DataSource; {@link Skipjack.Builder#backend(Backend)} names it instead, for a
 * PostgreSQL-compatible engine that reports another product name. Versions Skipjack needs are
 * in {@link #minimumVersion()}; see {@code docs/backends.md} for what differs between them.
 */
public enum Backend {
    /** PostgreSQL 12 and later: every feature, LISTEN/NOTIFY wake-ups, two-phase mode. */
    POSTGRESQL("PostgreSQL", "12"),
    /** MariaDB 10.6 and later (SKIP LOCKED since 10.6): polling wake-ups, no two-phase mode. */
    MARIADB("MariaDB", "10.6"),
    /** MySQL 8.0 and later (SKIP LOCKED since 8.0.1): polling wake-ups, no two-phase mode. */
    MYSQL("MySQL", "8.0"),
    /** SQLite 3.35 and later (RETURNING): one process. */
    SQLITE("SQLite", "3.35");

    private final String productName;
    private final String minimumVersion;

    Backend(String productName, String minimumVersion) {
        this.productName = productName;
        this.minimumVersion = minimumVersion;
    }

    /** The product as its vendor names it, e.g. {@code MariaDB}. */
    public String productName() {
        return productName;
    }

    /** The oldest version Skipjack supports, e.g. {@code 10.6}. */
    public String minimumVersion() {
        return minimumVersion;
    }

    /** Every backend with its minimum version, e.g. "PostgreSQL 12+, MariaDB 10.6+, ...", for messages. */
    static String supportedList() {
        StringBuilder out = new StringBuilder();
        for (Backend b : values()) {
            out.append(out.length() == 0 ? "" : ", ").append(b.productName).append(' ').append(b.minimumVersion).append('+');
        }
        return out.toString();
    }
}
