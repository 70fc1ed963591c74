package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.DatabaseClock;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.StatementLog;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a database with one write lock (SQLite) a claim round is one transaction: it writes the
 * completions waiting for the completion writer, then claims in statements of at most maxBatch
 * jobs, one after the other, in claim order. Neither half may cost the other: completions that
 * cannot be written do not stop the claim, and a round that fails does not lose the completions
 * it carried. The completer's writer thread is never started here (but in the last test), so a
 * completion that reaches the database got there with a claim round.
 */
class ClaimRoundUnderOneWriteLockTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final int JOBS = 20;

    private final List<Execution> acknowledged = new CopyOnWriteArrayList<>();
    private BatchCompleter<Execution> completer;
    private ClaimRound claims;
    private List<Long> ids;
    private SqlStatements sql;

    @Override
    protected TestBackend backend() {
        return TestBackend.SQLITE;
    }

    private final StatementLog statements = new StatementLog();

    @org.junit.jupiter.api.AfterEach
    void closeTheRound() {
        if (claims != null) {
            claims.close();
        }
    }

    @BeforeEach
    void jobsAndAClaimRound() {
        Skipjack client = client(builder().kind(JobKind.of("k", Args.class)));
        List<JobRequest> requests = new ArrayList<>();
        // Priorities out of id order, so claim order is not insertion order.
        IntStream.range(0, JOBS).forEach(i -> requests.add(JobRequest.of("k", new Args(i),
                EnqueueOptions.defaults().withPriority((JOBS - i) % 4))));
        ids = client.enqueueAll(requests);
        sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        CompletionWriter writer = new CompletionWriter(sql);
        completer = new BatchCompleter<>(dataSource, writer, acknowledged::add,
                new OutcomeTranslator(new ObjectMapper())::withUnstorableError, "w1", 1);
        claims = new ClaimRound(statements.wrap(dataSource), new JobClaimer(sql, "w1", Duration.ofMinutes(5)), "default", 5, Set.of(),
                sql.dialect(), completer);
    }

    @Test
    void aClaimWritesTheWaitingCompletionsAndTheirOwnersAreTold() {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        List<Execution> finished = submitCompleted(first);
        assertThat(stateCount("completed")).as("nothing is written before a claim").isZero();

        List<ClaimedJob> second = claimed(claims.claim(5, false));

        assertThat(second).hasSize(5).extracting(ClaimedJob::id).doesNotContainAnyElementsOf(idsOf(first));
        assertThat(completedIds()).containsExactlyInAnyOrderElementsOf(idsOf(first));
        assertThat(stateCount("running")).isEqualTo(5);
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
        assertThat(claims.claim(5, false).jobs()).as("the next claim carries nothing twice").hasSize(5);
        assertThat(acknowledged).hasSize(5);
    }

    @Test
    void aRoundLargerThanMaxBatchClaimsInStatementsOfMaxBatchInClaimOrder() {
        List<Long> claimOrder = idsInClaimOrder();
        statements.clear();

        ClaimRound.Claimed round = claims.claim(12, true);

        assertThat(claimed(round)).extracting(ClaimedJob::id).containsExactlyElementsOf(claimOrder.subList(0, 12));
        assertThat(round.full()).isTrue();
        assertThat(statements.executed()).as("statements of 5, 5 and 2 jobs").hasSize(3)
                .allSatisfy(sql -> assertThat(sql).startsWith("-- Claims up to N available jobs"));
        assertThat(stateCount("running")).isEqualTo(12);
    }

    @Test
    void aRoundIsOneTransaction() {
        List<Long> claimOrder = idsInClaimOrder();
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        List<Execution> finished = submitCompleted(first);
        // Refuses the claim of one job of the round's third statement, after two statements took theirs.
        execute("CREATE TRIGGER refuse_claim BEFORE UPDATE ON skipjack_jobs WHEN NEW.state = 'running' AND OLD.id = "
                + claimOrder.get(5 + 10 + 1) + " BEGIN SELECT RAISE(ABORT, 'claim refused by the test'); END");

        ClaimRound.Claimed failed = claims.claim(15, true);

        assertThat(failed.failure()).hasMessageContaining("claim refused by the test");
        assertThat(failed.jobs()).isEmpty();
        assertThat(stateCount("running")).as("the round's first two statements rolled back with it").isZero();
        assertThat(completedIds()).as("the carried completions written on their own after the rollback")
                .containsExactlyInAnyOrderElementsOf(idsOf(first));
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
    }

    @Test
    void aClaimThatFailsStillWritesTheCompletionsItCarried() {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        List<Execution> finished = submitCompleted(first);
        execute("CREATE TRIGGER refuse_claims BEFORE UPDATE ON skipjack_jobs WHEN NEW.state = 'running'"
                + " BEGIN SELECT RAISE(ABORT, 'claims refused by the test'); END");

        ClaimRound.Claimed failed = claims.claim(5, false);

        assertThat(failed.failure()).hasMessageContaining("claims refused by the test");
        assertThat(failed.jobs()).isEmpty();
        assertThat(completedIds()).as("written on their own after the claim's rollback")
                .containsExactlyInAnyOrderElementsOf(idsOf(first));
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
        assertThat(stateCount("available")).as("the failed claim took nothing").isEqualTo(JOBS - 5);
    }

    @Test
    void completionsThatCannotBeWrittenWaitForTheWriterWhileTheClaimGoesOn() {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        List<Execution> finished = submitCompleted(first);
        execute("CREATE TRIGGER refuse_completions BEFORE UPDATE ON skipjack_jobs WHEN NEW.state = 'completed'"
                + " BEGIN SELECT RAISE(ABORT, 'completions refused by the test'); END");

        List<ClaimedJob> second = claimed(claims.claim(5, false));

        assertThat(second).as("the claim went on alone").hasSize(5);
        assertThat(stateCount("running")).isEqualTo(10);
        assertThat(stateCount("completed")).isZero();
        assertThat(acknowledged).as("an execution is acknowledged only once written").isEmpty();

        // Back in the queue: once the database takes them, the next claim (or the writer) writes them.
        execute("DROP TRIGGER refuse_completions");
        claimed(claims.claim(5, false));
        assertThat(completedIds()).containsExactlyInAnyOrderElementsOf(idsOf(first));
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
    }

    @Test
    void aRoundThatGetsNoWriteLockGivesItsCompletionsBackWithoutWaitingAgain() throws Exception {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        List<Execution> finished = submitCompleted(first);
        String url = backend().jdbcUrl();
        assertThat(url).contains("busy_timeout=10000");
        try (HikariDataSource impatient = new HikariDataSource(hikari(url.replace("busy_timeout=10000", "busy_timeout=200")));
             java.sql.Connection holder = dataSource.getConnection()) {
            StatementLog impatientStatements = new StatementLog();
            ClaimRound waiting = new ClaimRound(impatientStatements.wrap(impatient),
                    new JobClaimer(sql, "w1", Duration.ofMinutes(5)), "default", 5, Set.of(), sql.dialect(), completer);
            holder.setAutoCommit(false); // BEGIN IMMEDIATE: the write lock, held until the rollback below

            ClaimRound.Claimed failed = waiting.claim(5, false);

            assertThat(failed.failure()).isInstanceOf(java.sql.SQLException.class);
            assertThat(failed.jobs()).isEmpty();
            assertThat(impatientStatements.prepared())
                    .as("after one busy timeout at BEGIN, neither the completions nor the claim wait for another")
                    .isEmpty();
            assertThat(acknowledged).isEmpty();
            holder.rollback();
        }
        List<ClaimedJob> next = claimed(claims.claim(5, false));
        assertThat(next).hasSize(5);
        assertThat(completedIds()).as("given back to the queue, then carried by the next round")
                .containsExactlyInAnyOrderElementsOf(idsOf(first));
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
    }

    private static com.zaxxer.hikari.HikariConfig hikari(String url) {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(2);
        return config;
    }

    @Test
    void theWriterThreadWritesWhatNoClaimCarried() {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        List<Execution> finished = submitCompleted(first);
        completer.start();
        try {
            await("the writer thread to write them", Duration.ofSeconds(10), () -> acknowledged.size() == 5);
        } finally {
            completer.stop(Duration.ofSeconds(5));
        }
        assertThat(completedIds()).containsExactlyInAnyOrderElementsOf(idsOf(first));
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
    }

    @Test
    void whileARoundRunsTheWriterThreadLeavesTheQueueToIt() throws Exception {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        assertThat(completer.take()).as("a round begins; nothing queued yet").isNull();

        assertLeftToTheRoundsUntilTheLastEnds(first);
    }

    @Test
    void theWriterThreadWaitsUntilEveryQueuesRoundHasEnded() throws Exception {
        List<ClaimedJob> first = claimed(claims.claim(5, false));
        // One completer serves the rounds of every queue: two rounds begin, one ends.
        assertThat(completer.take()).isNull();
        assertThat(completer.take()).isNull();
        completer.roundEnded();

        assertLeftToTheRoundsUntilTheLastEnds(first);
    }

    /**
     * With one claim round still running: {@code jobs}' completions, submitted with the writer
     * thread started, stay unwritten; once that round ends, the writer thread writes them.
     */
    private void assertLeftToTheRoundsUntilTheLastEnds(List<ClaimedJob> jobs) throws Exception {
        List<Execution> finished = submitCompleted(jobs);
        completer.start();
        try {
            Thread.sleep(300); // the writer polls within milliseconds when it does not wait for the rounds
            assertThat(completedIds()).as("left to the round still running").isEmpty();

            completer.roundEnded();

            await("the writer thread to write them once no round runs", Duration.ofSeconds(10),
                    () -> acknowledged.size() == jobs.size());
        } finally {
            completer.stop(Duration.ofSeconds(5));
        }
        assertThat(completedIds()).containsExactlyInAnyOrderElementsOf(idsOf(jobs));
        assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(finished);
    }

    private static List<ClaimedJob> claimed(ClaimRound.Claimed round) {
        assertThat(round.failure()).isNull();
        return round.jobs();
    }

    private List<Execution> submitCompleted(List<ClaimedJob> jobs) {
        List<Execution> executions = new ArrayList<>();
        for (ClaimedJob job : jobs) {
            Execution e = new Execution("default", job.id(), job.attempt(), false, Long.MAX_VALUE);
            completer.submit(e, Completion.completed(job.id(), job.attempt()));
            executions.add(e);
        }
        return executions;
    }

    /** The available jobs' ids in the order a claim must take them: priority, run_at, id. */
    private List<Long> idsInClaimOrder() {
        List<Long> out = new ArrayList<>();
        try (java.sql.Connection c = dataSource.getConnection();
             java.sql.ResultSet rs = c.createStatement().executeQuery(
                     "SELECT id FROM skipjack_jobs WHERE state = 'available' ORDER BY priority, run_at, id")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        assertThat(out).as("priorities put claim order out of id order").isNotEqualTo(ids);
        return out;
    }

    private static List<Long> idsOf(List<ClaimedJob> jobs) {
        return jobs.stream().map(ClaimedJob::id).toList();
    }

    private List<Long> completedIds() {
        List<Long> out = new ArrayList<>();
        for (long id : ids) {
            if (queryLong("SELECT count(*) FROM skipjack_jobs WHERE id = ? AND state = 'completed'", id) == 1) {
                out.add(id);
            }
        }
        return out;
    }

    private long stateCount(String state) {
        return queryLong("SELECT count(*) FROM skipjack_jobs WHERE state = ?", state);
    }
}
