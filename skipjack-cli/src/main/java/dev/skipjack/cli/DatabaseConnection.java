package dev.skipjack.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;

import java.io.PrintWriter;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A connection pool on the database a command works on: the one the user named, or else a
 * throw-away embedded PostgreSQL started for this run and stopped by {@link #close()}.
 */
public final class DatabaseConnection implements AutoCloseable {

    private final HikariDataSource dataSource;
    private final EmbeddedDatabase embedded;
    private final DatabaseUrl url;

    private DatabaseConnection(HikariDataSource dataSource, EmbeddedDatabase embedded, DatabaseUrl url) {
        this.dataSource = dataSource;
        this.embedded = embedded;
        this.url = url;
    }

    /** The database this pool is on (the embedded server's, when one was started). */
    public DatabaseUrl url() {
        return url;
    }

    /**
     * Opens a pool of up to {@code poolSize} connections on {@code url}, or on a new embedded server
     * when {@code url} is empty. Says on {@code out} which database it uses.
     */
    public static DatabaseConnection open(Optional<DatabaseUrl> url, int poolSize, PrintWriter out) {
        if (url.isPresent()) {
            out.println("Using database " + url.get().displayName());
            out.flush();
            return new DatabaseConnection(pool(url.get(), poolSize), null, url.get());
        }
        out.println("No --url or SKIPJACK_DATABASE_URL given: starting an embedded PostgreSQL for this run...");
        out.flush();
        long startNanos = System.nanoTime();
        EmbeddedDatabase embedded = EmbeddedDatabase.start();
        try {
            out.printf("Embedded PostgreSQL listening on port %d (started in %.1f s; deleted when this command ends)%n",
                    embedded.port(), (System.nanoTime() - startNanos) / 1e9);
            out.flush();
            DatabaseUrl embeddedUrl = DatabaseUrl.parse(embedded.jdbcUrl());
            return new DatabaseConnection(pool(embeddedUrl, poolSize), embedded, embeddedUrl);
        } catch (RuntimeException e) {
            embedded.close();
            throw e;
        }
    }

    private static HikariDataSource pool(DatabaseUrl url, int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("skipjack-cli");
        config.setJdbcUrl(url.jdbcUrl());
        if (url.user() != null) {
            config.setUsername(url.user());
        }
        if (url.password() != null) {
            config.setPassword(url.password());
        }
        config.setMaximumPoolSize(poolSize);
        // Fail at once with the driver's reason when the database is unreachable, not at first use.
        config.setInitializationFailTimeout(1);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() {
        try {
            dataSource.close();
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
