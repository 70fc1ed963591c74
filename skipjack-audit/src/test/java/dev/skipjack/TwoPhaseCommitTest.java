package dev.skipjack;

import dev.skipjack.embedded.EmbeddedDatabase;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.TestDatabase;
import dev.skipjack.audit.process.AuditedWorker;
import dev.skipjack.audit.process.WorkerProcesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-5, two-phase commit for external side effects. A worker JVM is halted (like SIGKILL) between
 * each pair of steps — database work / PREPARE / external call / COMMIT PREPARED — and a second
 * worker with the resolver takes over. Every time the final state is the same: the job completed,
 * exactly one ledger row (the database work), exactly one external effect, no prepared
 * transaction left behind.
 */
class TwoPhaseCommitTest extends DatabaseTest {

    static final long LEASE_MILLIS = 1_000;

    @ParameterizedTest
    @ValueSource(strings = {"none", "before-prepare", "after-prepare", "after-external"})
    void killedBetweenStepsEndsWithExactlyOneEffectEverywhere(String crashPoint) throws Exception {
        Skipjack producer = client(builder().kind(JobKind.of("pay", AuditedWorker.Payment.class)));
        execute("CREATE TABLE \"" + schema + "\".ledger (job_id bigint, attempt int, amount int)");
        execute("CREATE TABLE \"" + schema + "\".external_effects (job_id bigint, attempt int)");
        long id = producer.enqueue("pay", new AuditedWorker.Payment(42));
        try (WorkerProcesses workers = new WorkerProcesses(schema)) {
            Process first = workers.startTwoPhase(TestDatabase.jdbcUrl(), schema, "first", crashPoint, LEASE_MILLIS);
            if (crashPoint.equals("none")) {
                await("the job completed", Duration.ofSeconds(30), () -> state(id).equals("completed"));
            } else {
                assertThat(first.waitFor(30, TimeUnit.SECONDS)).as("the worker halted at " + crashPoint).isTrue();
                long prepared = preparedTransactions();
                assertThat(prepared).as("prepared transactions left by a crash at " + crashPoint)
                        .isEqualTo(crashPoint.equals("before-prepare") ? 0 : 1);
                assertThat(state(id)).as("the committed state of the job meanwhile").isEqualTo("available");
                workers.startTwoPhase(TestDatabase.jdbcUrl(), schema, "second", "none", LEASE_MILLIS);
                await("the job completed", Duration.ofSeconds(30), () -> state(id).equals("completed"));
            }
            await("no prepared transaction left", Duration.ofSeconds(10), () -> preparedTransactions() == 0);
        }
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".ledger WHERE job_id = ?", id))
                .as("ledger rows (the database work)").isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".external_effects WHERE job_id = ?", id))
                .as("external effects").isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".ledger l JOIN \"" + schema
                + "\".external_effects e USING (job_id, attempt)")).as("the database work and the effect of one attempt")
                .isEqualTo(1);
    }

    @Test
    void failedExternalCallRollsThePreparedWorkBackAndCountsTheAttempt() {
        AtomicInteger calls = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 1).twoPhaseHandler(JobKind.of("pay", AuditedWorker.Payment.class),
                KindOptions.defaults().withRetryPolicy(a -> Duration.ZERO), new TwoPhaseJobHandler<AuditedWorker.Payment>() {
                    @Override
                    public Outcome prepare(Job<AuditedWorker.Payment> job, Connection tx) throws Exception {
                        return writeLedgerRow(job, tx);
                    }

                    @Override
                    public void callExternal(Job<AuditedWorker.Payment> job) {
                        if (calls.incrementAndGet() == 1) {
                            throw new IllegalStateException("payment provider down");
                        }
                    }

                    @Override
                    public boolean externalEffectHappened(long jobId, int attempt) {
                        return false;
                    }
                }));
        execute("CREATE TABLE \"" + schema + "\".ledger (job_id bigint, attempt int)");
        long id = s.enqueue("pay", new AuditedWorker.Payment(1));
        s.start();
        JobInfo done = awaitState(s, id, JobState.COMPLETED, Duration.ofSeconds(30));
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.errors()).singleElement().satisfies(e -> assertThat(e.errorClass()).isEqualTo("ExternalCallFailed"));
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".ledger")).as("only the second attempt's work").isEqualTo(1);
        assertThat(queryLong("SELECT attempt FROM \"" + schema + "\".ledger")).isEqualTo(2);
    }

    /** The database work of a two-phase job here: one ledger row of its attempt, in the job's transaction. */
    private Outcome writeLedgerRow(Job<AuditedWorker.Payment> job, Connection tx) throws java.sql.SQLException {
        try (java.sql.Statement st = tx.createStatement()) {
            st.execute("INSERT INTO \"" + schema + "\".ledger VALUES (" + job.id() + ", " + job.attempt() + ")");
        }
        return Outcome.complete();
    }

    /** A two-phase handler recording its external effect in a table, {@code callExternal} taking {@code callMillis}. */
    private TwoPhaseJobHandler<AuditedWorker.Payment> recordingEffects(long callMillis) {
        return new TwoPhaseJobHandler<>() {
            @Override
            public Outcome prepare(Job<AuditedWorker.Payment> job, Connection tx) throws Exception {
                return writeLedgerRow(job, tx);
            }

            @Override
            public void callExternal(Job<AuditedWorker.Payment> job) throws Exception {
                Thread.sleep(callMillis); // the outside system's answer time, not synchronisation
                execute("INSERT INTO \"" + schema + "\".external_effects VALUES (" + job.id() + ", " + job.attempt() + ")");
            }

            @Override
            public boolean externalEffectHappened(long jobId, int attempt) {
                return queryLong("SELECT count(*) FROM \"" + schema + "\".external_effects WHERE job_id = ? AND attempt = ?",
                        jobId, attempt) > 0;
            }
        };
    }

    /**
     * The resolver runs on every node with two-phase kinds: a maintenance leader that serves none
     * of them would leave an orphan, and the job's row it locks, in place forever.
     */
    @Test
    void anOrphanIsResolvedByANodeOfItsKindWhileTheLeaderServesNone() throws Exception {
        Skipjack leader = client(builder().workerId("leader").queue("other", 1).kind(JobKind.of("pay", AuditedWorker.Payment.class))
                .handler(JobKind.of("noop", AuditedWorker.Payment.class), job -> Outcome.complete()));
        execute("CREATE TABLE \"" + schema + "\".ledger (job_id bigint, attempt int)");
        execute("CREATE TABLE \"" + schema + "\".external_effects (job_id bigint, attempt int)");
        leader.start();
        await("the first node to lead", Duration.ofSeconds(30), () -> queryLong("SELECT count(*) FROM \"" + schema
                + "\".skipjack_leader WHERE name = 'maintenance' AND holder = 'leader'") == 1);
        long id = leader.enqueue("pay", new AuditedWorker.Payment(1));
        // A worker that died between PREPARE TRANSACTION and COMMIT PREPARED, its call not made.
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (java.sql.Statement st = c.createStatement()) {
                st.execute("UPDATE " + jobsTable() + " SET state = 'running', attempt = 1, claimed_by = 'dead',"
                        + " attempted_at = now(), lease_until = now() + interval '1 second' WHERE id = " + id);
                st.execute("INSERT INTO \"" + schema + "\".ledger VALUES (" + id + ", 1)");
                st.execute("PREPARE TRANSACTION 'skipjack:" + schema + ":skipjack_:" + id + ":1'");
            }
            c.setAutoCommit(true);
        }

        Skipjack worker = client(builder().workerId("worker").lease(Duration.ofMillis(LEASE_MILLIS)).queue("default", 1)
                .twoPhaseHandler(JobKind.of("pay", AuditedWorker.Payment.class), recordingEffects(0)));
        worker.start();

        JobInfo done = awaitState(worker, id, JobState.COMPLETED, Duration.ofSeconds(30));
        assertThat(done.attempt()).as("the orphan rolled back, then run again").isEqualTo(1);
        assertThat(preparedTransactions()).isZero();
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".ledger")).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".external_effects")).isEqualTo(1);
        assertThat(queryText("SELECT holder FROM \"" + schema + "\".skipjack_leader WHERE name = 'maintenance'"))
                .as("resolved by a node that does not lead").isEqualTo("leader");
    }

    /**
     * An external call that outlasts the lease is not an orphan: its worker is alive. Taken for
     * one, its prepared work was rolled back while the call went on, the job ran again, and the
     * external effect happened twice.
     */
    @Test
    void aPreparedTransactionWhoseWorkerIsStillCallingOutIsNotAnOrphan() throws Exception {
        Skipjack worker = client(builder().lease(Duration.ofMillis(LEASE_MILLIS)).queue("default", 2)
                .twoPhaseHandler(JobKind.of("pay", AuditedWorker.Payment.class), recordingEffects(LEASE_MILLIS * 4)));
        execute("CREATE TABLE \"" + schema + "\".ledger (job_id bigint, attempt int)");
        execute("CREATE TABLE \"" + schema + "\".external_effects (job_id bigint, attempt int)");
        long id = worker.enqueue("pay", new AuditedWorker.Payment(1));
        worker.start();

        JobInfo done = awaitState(worker, id, JobState.COMPLETED, Duration.ofSeconds(30));
        // Waits for every handler still running: a second execution's effect would come after the job completed.
        worker.stop(Duration.ofSeconds(30));
        await("no prepared transaction left", Duration.ofSeconds(10), () -> preparedTransactions() == 0);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".external_effects WHERE job_id = ?", id))
                .as("external effects").isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".ledger WHERE job_id = ?", id)).isEqualTo(1);
    }

    @Test
    void startRefusesTwoPhaseKindsWhenTheServerCannotPrepareTransactions() {
        try (EmbeddedDatabase noPrepare = EmbeddedDatabase.builder().serverConfig("max_prepared_transactions", "0").start();
             com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource(hikari(noPrepare.jdbcUrl()))) {
            Skipjack s = Skipjack.builder(ds).queue("default", 1).twoPhaseHandler(JobKind.of("pay", AuditedWorker.Payment.class),
                    new TwoPhaseJobHandler<AuditedWorker.Payment>() {
                        public Outcome prepare(Job<AuditedWorker.Payment> job, Connection tx) {
                            return Outcome.complete();
                        }

                        public void callExternal(Job<AuditedWorker.Payment> job) {
                        }

                        public boolean externalEffectHappened(long jobId, int attempt) {
                            return false;
                        }
                    }).build();
            s.migrate();
            assertThatThrownBy(s::start).isInstanceOf(SkipjackException.class)
                    .hasMessageContaining("max_prepared_transactions > 0, and this server has 0");
            s.stop(Duration.ZERO);
        }
    }

    private static com.zaxxer.hikari.HikariConfig hikari(String url) {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        return config;
    }

    private String state(long id) {
        return queryText("SELECT state FROM " + jobsTable() + " WHERE id = " + id);
    }

    private long preparedTransactions() {
        return queryLong("SELECT count(*) FROM pg_prepared_xacts WHERE starts_with(gid, ?)", "skipjack:" + schema + ":");
    }

    private String queryText(String sql) {
        try (Connection c = dataSource.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
