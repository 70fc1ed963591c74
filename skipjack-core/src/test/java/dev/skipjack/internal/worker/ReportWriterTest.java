package dev.skipjack.internal.worker;

import dev.skipjack.DatabaseClock;
import dev.skipjack.JobKind;
import dev.skipjack.JobLog;
import dev.skipjack.Limits;
import dev.skipjack.Skipjack;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 6: what {@link ReportWriter} writes is guarded by (job, attempt, running), so a
 * stale execution never writes into a newer attempt nor into a finished job; and the stored log
 * stays within its bounds ({@link Limits#MAX_LOG_LINES} per attempt, {@link Limits#MAX_LOG_ATTEMPTS}
 * attempts).
 */
class ReportWriterTest extends EveryBackendTest {

    record Args(int n) {
    }

    private Skipjack client;
    private ReportWriter writer;
    private long id;

    @BeforeEach
    void aJob() {
        client = client(builder());
        id = client.enqueue(JobKind.of("reported", Args.class), new Args(1));
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        writer = new ReportWriter(dataSource, sql);
    }

    /** Puts the job in the state a worker running its attempt {@code attempt} would see. */
    private void runningAttempt(int attempt) {
        execute("UPDATE " + jobsTable() + " SET state = 'running', attempt = " + attempt + ", claimed_by = 'w',"
                + " lease_until = " + nowPlus(Duration.ofMinutes(5)) + ", attempted_at = " + nowPlus(Duration.ZERO)
                + " WHERE id = " + id);
    }

    private JobLog log() {
        return client.admin().jobLog(id);
    }

    @Test
    void aStaleAttemptWritesNothingAndTheCurrentOneWritesItsOwn() {
        runningAttempt(2);
        ExecutionReports stale = new ExecutionReports(id, 1);
        stale.log("from the stale attempt");
        stale.progress(90, "stale");
        ExecutionReports current = new ExecutionReports(id, 2);
        current.log("from the current attempt");
        current.progress(10, "current");

        writer.flushPending(List.of(stale, current));

        assertThat(log().lines()).extracting(JobLog.Line::attempt, JobLog.Line::text)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, "from the current attempt"));
        assertThat(log().progress()).extracting(JobLog.Progress::attempt, JobLog.Progress::percent, JobLog.Progress::message)
                .containsExactly(2, 10, "current");
        assertThat(stale.hasPending()).as("a refused write is not retried: it succeeded, guarded").isFalse();

        stale.progress(95, "stale again");
        writer.flushPending(List.of(stale));
        assertThat(log().progress().percent()).as("the newer attempt's progress stays").isEqualTo(10);
    }

    @Test
    void nothingIsWrittenOnceTheJobIsNoLongerRunning() {
        runningAttempt(1);
        ExecutionReports reports = new ExecutionReports(id, 1);
        reports.log("while running");
        writer.flushPending(List.of(reports));
        execute("UPDATE " + jobsTable() + " SET state = 'completed', lease_until = NULL, finished_at = "
                + nowPlus(Duration.ZERO) + " WHERE id = " + id);

        reports.log("after the outcome");
        reports.progress(100, "too late");
        writer.flushLast(reports);
        reports.log("after the last flush");

        assertThat(log().lines()).extracting(JobLog.Line::text).containsExactly("while running");
        assertThat(log().progress()).isNull();
        assertThat(reports.hasPending()).as("closed: takes no more").isFalse();
    }

    @Test
    void anAttemptKeepsItsLatestLinesOnly() {
        runningAttempt(1);
        ExecutionReports reports = new ExecutionReports(id, 1);
        int total = Limits.MAX_LOG_LINES + 30;
        for (int i = 1; i <= total; i++) {
            reports.log("line " + i);
            if (i % 40 == 0) {
                writer.flushPending(List.of(reports)); // written in several flushes, trimmed as it grows
            }
        }
        writer.flushLast(reports);
        assertThat(log().lines()).extracting(JobLog.Line::number)
                .containsExactlyElementsOf(IntStream.rangeClosed(total - Limits.MAX_LOG_LINES + 1, total).boxed().toList());
        assertThat(log().lines().get(Limits.MAX_LOG_LINES - 1).text()).isEqualTo("line " + total);
    }

    @Test
    void aJobKeepsTheLinesOfItsLatestAttemptsOnly() {
        int attempts = Limits.MAX_LOG_ATTEMPTS + 2;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            runningAttempt(attempt);
            ExecutionReports reports = new ExecutionReports(id, attempt);
            reports.log("attempt " + attempt);
            writer.flushLast(reports);
        }
        assertThat(log().lines()).extracting(JobLog.Line::attempt)
                .containsExactlyElementsOf(IntStream.rangeClosed(attempts - Limits.MAX_LOG_ATTEMPTS + 1, attempts).boxed().toList());
    }
}
