package dev.skipjack;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * docs/operating.md#pgbouncer, run as written: a real PgBouncer in transaction mode in front of
 * the test PostgreSQL, and a client configured as the docs say ({@code prepareThreshold=0} on the
 * URL for PgBouncer before 1.21, {@code ignore_startup_parameters = extra_float_digits} in
 * PgBouncer, {@code listenNotify(false)}). Migrations, enqueues, claims, lease-mode and
 * transactional jobs, completions and maintenance all go through the pooler, and every job runs
 * exactly once.
 *
 * <p>Needs the {@code pgbouncer} binary ({@code apt-get install pgbouncer}; CI's {@code .ci/run}
 * installs it and the test fails on CI without it). PostgreSQL only.
 */
class PgBouncerTransactionModeTest extends DatabaseTest {

    private static final Path PGBOUNCER = Path.of("/usr/sbin/pgbouncer");
    private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/([^?]+)(?:\\?(.*))?");

    record Welcome(int user) {
    }

    record Ledger(int user) {
    }

    private static final JobKind<Welcome> WELCOME = JobKind.of("welcome", Welcome.class);
    private static final JobKind<Ledger> LEDGER = JobKind.of("ledger", Ledger.class);

    private Process pgbouncer;
    private Path dir;
    private HikariDataSource throughBouncer;

    @BeforeEach
    void startPgBouncer() throws Exception {
        if (!Files.isExecutable(PGBOUNCER)) {
            assertThat(System.getenv("CI")).as("pgbouncer is missing on CI (apt-get install pgbouncer)").isNotEqualTo("true");
            assumeTrue(false, "pgbouncer is not installed (apt-get install pgbouncer)");
        }
        Matcher url = URL.matcher(TestBackend.POSTGRESQL.jdbcUrl());
        assertThat(url.matches()).as("the test PostgreSQL's URL: %s", TestBackend.POSTGRESQL.jdbcUrl()).isTrue();
        String user = userOf(url.group(4));
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        // PgBouncer refuses to run as root: it drops to 'nobody', who must read the config and write the log.
        dir = Files.createTempDirectory("pgbouncer");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, String.join("\n",
                "[databases]",
                "skipjack = host=" + url.group(1) + " port=" + url.group(2) + " dbname=" + url.group(3) + " user=" + user,
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = any",
                "pool_mode = transaction",
                // Fewer server connections than the client pool: statements of one client
                // connection really do land on different server sessions.
                "default_pool_size = 3",
                "ignore_startup_parameters = extra_float_digits",
                "logfile = " + dir.resolve("pgbouncer.log"),
                ""));
        List<String> command = "root".equals(System.getProperty("user.name"))
                ? List.of(PGBOUNCER.toString(), "-u", "nobody", ini.toString())
                : List.of(PGBOUNCER.toString(), ini.toString());
        pgbouncer = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        awaitListening(port);

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/skipjack?user=" + user + "&prepareThreshold=0");
        config.setMaximumPoolSize(8);
        throughBouncer = new HikariDataSource(config);
    }

    private static String userOf(String query) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("user=")) {
                    return pair.substring("user=".length());
                }
            }
        }
        return "postgres";
    }

    private void awaitListening(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!pgbouncer.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("pgbouncer did not start: " + Files.readString(dir.resolve("stdout.log"))
                            + (Files.exists(dir.resolve("pgbouncer.log")) ? Files.readString(dir.resolve("pgbouncer.log")) : ""));
                }
                Thread.sleep(50); // polling a port that is not open yet, with a deadline
            }
        }
    }

    @AfterEach
    void stopPgBouncer() throws Exception {
        if (throughBouncer != null) {
            throughBouncer.close();
        }
        if (pgbouncer != null) {
            pgbouncer.destroy();
            if (!pgbouncer.waitFor(10, TimeUnit.SECONDS)) {
                pgbouncer.destroyForcibly();
            }
        }
    }

    @Test
    void everyJobRunsExactlyOnceThroughTransactionModePgBouncer() throws Exception {
        int jobs = 300;
        Set<Integer> welcomed = ConcurrentHashMap.newKeySet();
        Map<Integer, Integer> runs = new ConcurrentHashMap<>();
        Skipjack client = Skipjack.builder(throughBouncer).schema(schema)
                .listenNotify(false) // LISTEN needs a session of its own, which transaction mode does not give
                .pollInterval(Duration.ofMillis(100))
                .queue("default", 6)
                .handler(WELCOME, job -> {
                    runs.merge(job.args().user(), 1, Integer::sum);
                    welcomed.add(job.args().user());
                    return Outcome.complete();
                })
                .transactionalHandler(LEDGER, (job, tx) -> {
                    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + schema + ".ledger (user_id) VALUES (?)")) {
                        ps.setInt(1, job.args().user());
                        ps.executeUpdate();
                    }
                    return Outcome.complete();
                })
                .build();
        assertThat(client.migrate()).as("migrated through PgBouncer").isNotEmpty();
        execute("CREATE TABLE " + schema + ".ledger (user_id integer PRIMARY KEY)");
        for (int i = 0; i < jobs; i++) {
            client.enqueue(WELCOME, new Welcome(i));
        }
        client.enqueueAll(java.util.stream.IntStream.range(0, jobs)
                .mapToObj(i -> JobRequest.of(LEDGER, new Ledger(i))).toList());
        client.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed'") < 2L * jobs
                    && System.nanoTime() < deadline) {
                Thread.sleep(100); // polling the table with a deadline
            }
        } finally {
            client.close();
        }

        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'completed' AND attempt = 1"))
                .as("every job completed at its first attempt: no statement failed behind the pooler")
                .isEqualTo(2L * jobs);
        assertThat(welcomed).hasSize(jobs);
        assertThat(runs.values()).as("lease-mode jobs run once each").containsOnly(1);
        assertThat(queryLong("SELECT count(*) FROM " + schema + ".ledger"))
                .as("each transactional job's write committed once with its job").isEqualTo(jobs);
    }
}
