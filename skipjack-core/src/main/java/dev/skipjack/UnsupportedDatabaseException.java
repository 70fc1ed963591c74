package dev.skipjack;

/**
 * The DataSource leads to a database Skipjack cannot run on: another product (Oracle, SQL Server,
 * H2, ...), or a supported product older than Skipjack needs (MySQL 5.7, MariaDB 10.5,
 * PostgreSQL 11). Thrown once, by {@link Skipjack.Builder#build()}, before any statement of
 * Skipjack's runs; the message names the product, its version and the supported list. Its
 * {@link #option() option} is {@code dataSource}.
 */
public class UnsupportedDatabaseException extends InvalidConfigurationException {

    private final String product;
    private final String version;

    /**
     * @param product the product as the database reported it, e.g. {@code H2}
     * @param version its version as reported, e.g. {@code 5.5.5-10.5.23-MariaDB}
     * @param reason  why it is refused, e.g. "MariaDB before 10.6 has no SKIP LOCKED"
     */
    public UnsupportedDatabaseException(String product, String version, String reason) {
        super("dataSource", "Skipjack cannot run on " + product + " " + version + ": " + reason
                + ". Supported: " + Backend.supportedList()
                + ". For a PostgreSQL-compatible database that reports another name, set Skipjack.builder(dataSource)"
                + ".backend(Backend.POSTGRESQL).");
        this.product = product;
        this.version = version;
    }

    /** The product as the database reported it, e.g. {@code MariaDB}. */
    public String product() {
        return product;
    }

    /** The version as the database reported it. */
    public String version() {
        return version;
    }
}
