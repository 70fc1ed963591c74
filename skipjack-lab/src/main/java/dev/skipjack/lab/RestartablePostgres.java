package dev.skipjack.lab;

import dev.skipjack.embedded.EmbeddedDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An embedded PostgreSQL that a lab command owns and can stop and start again on the same port
 * and data directory, so clients reconnect to the same URL. Commits are synchronous: a restart
 * must not lose what a client was told had committed (the disposable default turns that off).
 */
final class RestartablePostgres implements AutoCloseable {

    private final EmbeddedDatabase.Builder builder;
    private EmbeddedDatabase running;

    private RestartablePostgres(EmbeddedDatabase.Builder builder) {
        this.builder = builder;
        this.running = builder.start();
    }

    static RestartablePostgres start() {
        try {
            Path data = Files.createTempDirectory("skipjack-lab-pg-");
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            return new RestartablePostgres(EmbeddedDatabase.builder().port(port).dataDirectory(data)
                    .serverConfig("synchronous_commit", "on"));
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare the embedded PostgreSQL", e);
        }
    }

    String jdbcUrl() {
        return running.jdbcUrl();
    }

    /** Stops the server (a fast shutdown: sessions are terminated) and starts it again on the same data. */
    void restart() {
        running.close();
        running = builder.start();
    }

    @Override
    public void close() {
        running.close();
    }
}
