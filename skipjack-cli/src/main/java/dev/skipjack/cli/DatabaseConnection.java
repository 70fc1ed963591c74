package dev.skipjack.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
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
    /** The throw-away SQLite directory of {@link #openEmbedded}, deleted by {@link #close()}; or null. */
    private final Path sqliteDirectory;

    private DatabaseConnection(HikariDataSource dataSource, EmbeddedDatabase embedded, DatabaseUrl url) {
        this(dataSource, embedded, url, null);
    }

    private DatabaseConnection(HikariDataSource dataSource, EmbeddedDatabase embedded, DatabaseUrl url, Path sqliteDirectory) {
        this.dataSource = dataSource;
        this.embedded = embedded;
        this.url = url;
        this.sqliteDirectory = sqliteDirectory;
    }

    /**
     * A throw-away database when the user named none: {@code postgres}, an embedded PostgreSQL
     * (as {@link #open} with no URL); {@code sqlite}, a new SQLite file in a temporary directory,
     * deleted by {@link #close()}.
     */
    public static DatabaseConnection openEmbedded(String backend, int poolSize, PrintWriter out) {
        String chosen = backend == null ? "postgres" : backend.trim().toLowerCase(java.util.Locale.ROOT);
        switch (chosen) {
            case "postgres", "postgresql" -> {
                return open(Optional.empty(), poolSize, out);
            }
            case "sqlite" -> {
                Path directory;
                try {
                    directory = Files.createTempDirectory("skipjack-demo-");
                } catch (IOException e) {
                    throw new CliException("could not create a temporary directory for the SQLite database: " + e.getMessage());
                }
                DatabaseUrl sqlite = DatabaseUrl.parse("jdbc:sqlite:" + directory.resolve("skipjack.db"));
                out.println("No --url or SKIPJACK_DATABASE_URL given: using a new SQLite database "
                        + directory.resolve("skipjack.db") + " (deleted when this command ends)");
                out.flush();
                return new DatabaseConnection(pool(sqlite, poolSize), null, sqlite, directory);
            }
            default -> throw new CliException("unknown --backend '" + backend + "': use postgres or sqlite");
        }
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
            if (sqliteDirectory != null) {
                deleteQuietly(sqliteDirectory);
            }
        }
    }

    /** Deletes the throw-away SQLite directory (the database, its WAL and shared-memory files). */
    private static void deleteQuietly(Path directory) {
        try (java.util.stream.Stream<Path> files = Files.list(directory)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // a temporary directory: the operating system cleans it up eventually
        }
    }
}
