package dev.skipjack.lab.hosts;

import dev.skipjack.embedded.EmbeddedDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The embedded PostgreSQL of a hosts run, with its data and its Unix socket under
 * {@link HostNetwork#STATE_DIR}: the socket is what the bridge's listener connects to, and the
 * data directory's {@code postmaster.pid} is how {@link HostNetwork#cleanup} finds a server whose
 * run was killed, and how the run measures the server's CPU.
 */
final class EmbeddedServer implements AutoCloseable {

    private static final Path DATA = HostNetwork.STATE_DIR.resolve("pg");

    private final EmbeddedDatabase database;

    private EmbeddedServer(EmbeddedDatabase database) {
        this.database = database;
    }

    static EmbeddedServer start() {
        try {
            deleteTree(DATA);
            Files.createDirectories(DATA);
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            return new EmbeddedServer(EmbeddedDatabase.builder().port(port).dataDirectory(DATA)
                    .serverConfig("unix_socket_directories", HostNetwork.STATE_DIR.toString())
                    .start());
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare the embedded PostgreSQL under " + DATA, e);
        }
    }

    String jdbcUrl() {
        return database.jdbcUrl();
    }

    /** The server's Unix socket, where the bridge's listener sends the workers' connections. */
    Path socket() {
        return HostNetwork.STATE_DIR.resolve(".s.PGSQL." + database.port());
    }

    /** The postmaster's pid, from its own pid file. */
    long postmasterPid() {
        return leftoverPostmaster().orElseThrow(() -> new IllegalStateException("no running postmaster in " + DATA));
    }

    @Override
    public void close() {
        database.close();
    }

    /** The postmaster of a server with its data under the state directory, if one still runs. */
    static Optional<Long> leftoverPostmaster() {
        Path pidFile = DATA.resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return Optional.empty();
            }
            long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::pid);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** SIGTERM (PostgreSQL's smart shutdown: its clients are gone by now), SIGKILL after 15 s. */
    static void stop(long postmaster) {
        ProcessHandle.of(postmaster).ifPresent(p -> {
            p.destroy();
            try {
                p.onExit().get(15, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        });
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
