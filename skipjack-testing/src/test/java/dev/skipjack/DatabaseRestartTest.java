package dev.skipjack;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestDatabase;
import dev.skipjack.testing.audit.AuditChecker;
import dev.skipjack.testing.audit.AuditChecker.Mode;
import dev.skipjack.testing.audit.AuditReport;
import dev.skipjack.testing.audit.AuditTables;
import dev.skipjack.testing.process.AuditedWorker;
import dev.skipjack.testing.process.WorkerProcesses;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RELIABILITY.md fault 2: the database server is stopped and started again mid-run (same port,
 * same data directory). Worker JVMs reconnect on their own; nothing is lost, nothing runs twice
 * without a reason, and the same workers still claim new work afterwards (no worker thread died).
 * Runs against an embedded server of its own, since it must stop it.
 */
class DatabaseRestartTest {

    static final int JOBS = 1_000;
    static final Duration OUTAGE = Duration.ofSeconds(2);

    private static EmbeddedDatabase.Builder server;
    private static EmbeddedDatabase db;
    private static HikariDataSource dataSource;

    @BeforeAll
    static void startServer() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = Files.createDirectories(Path.of("target", "restart-db-" + ProcessHandle.current().pid()));
        // synchronous_commit on: a restart must not lose commits the workers were told about.
        server = EmbeddedDatabase.builder().port(port).dataDirectory(data).serverConfig("synchronous_commit", "on");
        db = server.start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        dataSource = new HikariDataSource(config);
    }

    @AfterAll
    static void stopServer() {
        dataSource.close();
        db.close();
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
        AuditTables audit = new AuditTables(Backend.POSTGRESQL, names);
        try (Connection c = dataSource.getConnection()) {
            audit.create(c);
        }
        producer.enqueueAll(requests(JOBS));
        String jobs = producer.jobsTable();
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            workers.start(db.jdbcUrl(), schema, mode, "w0", 4, 10, 15_000, 5);
            workers.start(db.jdbcUrl(), schema, mode, "w1", 4, 10, 15_000, 5);
            DatabaseTest.await("a quarter done", Duration.ofSeconds(30),
                    () -> count("SELECT count(*) FROM " + jobs + " WHERE state = 'completed'") > JOBS / 4);
            try (Connection c = dataSource.getConnection()) {
                audit.recordFault(c, "*", "restart");
            }
            db.close();
            Thread.sleep(OUTAGE.toMillis()); // the outage itself
            db = server.start();
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
            report = new AuditChecker(Backend.POSTGRESQL, names).check(c, auditMode, JOBS + 200);
        }
        assertThat(report.ok()).as(report.summary()).isTrue();
        System.out.println("fault 2 (" + mode + "): " + report.summary());
    }

    private static List<JobRequest> requests(int n) {
        List<JobRequest> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            requests.add(JobRequest.of("audit", new AuditedWorker.Work(i)));
        }
        return requests;
    }

    private static long count(String sql) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
