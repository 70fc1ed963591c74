package dev.skipjack.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A throw-away PostgreSQL server started from the zonky binaries, for the demo, the benchmark and
 * the tests on a machine with no database service. Works as root (zonky wraps the server in
 * {@code unshare -U}).
 */
public final class EmbeddedDatabase implements AutoCloseable {

    private final EmbeddedPostgres postgres;

    private EmbeddedDatabase(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /** Starts a server with Skipjack's defaults (enough connections for multi-process tests, 2PC enabled). */
    public static EmbeddedDatabase start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** JDBC URL of the {@code postgres} database as the {@code postgres} superuser. */
    public String jdbcUrl() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    public int port() {
        return postgres.getPort();
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static final class Builder {
        private final Map<String, String> serverConfig = new LinkedHashMap<>();
        private int port;
        private Path dataDirectory;

        private Builder() {
            serverConfig.put("max_connections", "300");
            serverConfig.put("max_prepared_transactions", "64");
            // The embedded server is disposable: durability is not what the demo and tests measure.
            serverConfig.put("fsync", "off");
            serverConfig.put("synchronous_commit", "off");
            serverConfig.put("full_page_writes", "off");
        }

        public Builder serverConfig(String name, String value) {
            serverConfig.put(name, value);
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Keeps data in {@code dir} across restarts instead of a fresh temporary directory. */
        public Builder dataDirectory(Path dir) {
            this.dataDirectory = dir;
            return this;
        }

        public EmbeddedDatabase start() {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
            serverConfig.forEach(builder::setServerConfig);
            if (port > 0) {
                builder.setPort(port);
            }
            if (dataDirectory != null) {
                builder.setDataDirectory(dataDirectory);
                builder.setCleanDataDirectory(false);
            }
            try {
                return new EmbeddedDatabase(builder.start());
            } catch (IOException e) {
                throw new UncheckedIOException("could not start the embedded PostgreSQL server", e);
            }
        }
    }
}
