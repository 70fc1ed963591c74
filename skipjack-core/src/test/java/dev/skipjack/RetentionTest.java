package dev.skipjack;

import dev.skipjack.internal.maintenance.JobPruner;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-19 retention: completed, cancelled and discarded jobs are deleted once older than their
 * state's retention, by the maintenance leader only, at most 100 batches of 1,000 per round; jobs
 * that are not terminal are never deleted however old; a failing round does not stop pruning; bad
 * settings are refused when the client is built.
 *
 * <p>Rows are written with plain SQL so that their finish times can lie hours in the past. Where a
 * test must show that something was <em>not</em> deleted, it first waits for a control row
 * inserted after an earlier deletion was seen to be deleted too: the round that deletes it started
 * after the earlier round ended, so a whole round has looked at every row.
 */
class RetentionTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration PRUNE_INTERVAL = Duration.ofMillis(100);

    private Skipjack.Builder pruning() {
        return builder().queue("default", 2).handler(JobKind.of("k", Args.class), job -> Outcome.complete())
                .pruneInterval(PRUNE_INTERVAL);
    }

    @Test
    void terminalJobsOlderThanTheirRetentionAreDeletedAndYoungerOnesKept() {
        Skipjack s = client(pruning()
                .retention(JobState.COMPLETED, Duration.ofHours(1))
                .retention(JobState.CANCELLED, Duration.ofHours(1))
                .retention(JobState.DISCARDED, Duration.ofHours(1)));
        for (String state : new String[] {"completed", "cancelled", "discarded"}) {
            insertFinished("old", state, Duration.ofHours(2), 1);
            insertFinished("young", state, Duration.ofMinutes(50), 1);
        }
        // More than two batches of one state, so a round has to loop.
        insertFinished("old", "completed", Duration.ofHours(3), 2_500);
        s.start();

        await("old terminal jobs to be pruned", WAIT, () -> countInQueue("old") == 0);
        assertThat(countInQueue("young")).as("jobs younger than the retention").isEqualTo(3);
    }

    @Test
    void eachStateHasItsOwnRetention() {
        Skipjack s = client(pruning()
                .retention(JobState.COMPLETED, Duration.ofHours(1))
                .retention(JobState.DISCARDED, Duration.ofHours(3))
                .retention(JobState.CANCELLED, Skipjack.KEEP_FOREVER));
        insertFinished("gone", "completed", Duration.ofHours(2), 1);
        insertFinished("gone", "discarded", Duration.ofHours(4), 1);
        insertFinished("kept-discarded", "discarded", Duration.ofHours(2), 1);
        insertFinished("kept-cancelled", "cancelled", Duration.ofDays(3650), 1);
        s.start();

        await("jobs past their state's retention to be pruned", WAIT, () -> countInQueue("gone") == 0);
        awaitOneMoreWholeRound();
        assertThat(countInQueue("kept-discarded")).as("discarded 2 h ago, kept 3 h").isEqualTo(1);
        assertThat(countInQueue("kept-cancelled")).as("cancelled, kept forever").isEqualTo(1);
    }

    @Test
    void jobsThatAreNotTerminalAreNeverDeletedHoweverOld() {
        Skipjack s = client(pruning()
                .retention(JobState.COMPLETED, Duration.ZERO)
                .retention(JobState.CANCELLED, Duration.ZERO)
                .retention(JobState.DISCARDED, Duration.ZERO));
        // Created ten years ago; kept out of this client's reach (another queue, far run_at, live lease).
        String old = nowPlus(Duration.ofDays(-3650));
        execute("INSERT INTO " + jobsTable() + " (queue, kind, state, created_at, attempted_at, run_at, attempt, lease_until) VALUES"
                + " ('parked', 'k', 'available', " + old + ", NULL, " + old + ", 0, NULL),"
                + " ('parked', 'k', 'scheduled', " + old + ", NULL, " + nowPlus(Duration.ofDays(365)) + ", 0, NULL),"
                + " ('parked', 'k', 'retryable', " + old + ", " + old + ", " + nowPlus(Duration.ofDays(365)) + ", 1, NULL),"
                + " ('parked', 'k', 'running', " + old + ", " + old + ", " + old + ", 1, " + nowPlus(Duration.ofHours(1)) + ")");
        s.start();
        long done = s.enqueue("k", new Args(1));

        await("a job completed by the worker to be pruned at once", WAIT, () -> s.find(done).isEmpty());
        awaitOneMoreWholeRound();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE queue = 'parked'"
                + " AND state IN ('available', 'scheduled', 'retryable', 'running')"))
                .as("available, scheduled, retryable and running jobs, ten years old").isEqualTo(4);
    }

    @Test
    void retentionKeptForeverForEveryStateDeletesNothing() {
        Skipjack s = client(pruning()
                .retention(JobState.COMPLETED, Skipjack.KEEP_FOREVER)
                .retention(JobState.CANCELLED, ChronoUnit.FOREVER.getDuration())
                .retention(JobState.DISCARDED, Skipjack.KEEP_FOREVER));
        for (String state : new String[] {"completed", "cancelled", "discarded"}) {
            insertFinished("ancient", state, Duration.ofDays(3650), 1);
        }
        s.start();
        long done = s.enqueue("k", new Args(1));
        awaitState(s, done, JobState.COMPLETED, WAIT);

        // Nothing prunes here, so there is no round to wait for: watch for twenty prune intervals.
        assertStaysTrue("every terminal job kept", PRUNE_INTERVAL.multipliedBy(20),
                () -> countInQueue("ancient") == 3 && s.find(done).isPresent());
    }

    @Test
    void onlyTheMaintenanceLeaderPrunes() {
        Skipjack s = client(pruning().retention(JobState.COMPLETED, Duration.ofHours(1)));
        // Another node holds leadership for the next hour.
        execute("INSERT INTO " + table("skipjack_leader") + " VALUES ('maintenance', 'other-node', " + nowPlus(Duration.ofHours(1)) + ")");
        insertFinished("old", "completed", Duration.ofHours(2), 10);
        s.start();
        long done = s.enqueue("k", new Args(1));
        awaitState(s, done, JobState.COMPLETED, WAIT);

        assertStaysTrue("old jobs kept while another node leads", PRUNE_INTERVAL.multipliedBy(20),
                () -> countInQueue("old") == 10);

        // The other node's lease runs out: this client takes over and prunes.
        execute("UPDATE " + table("skipjack_leader") + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)));
        await("the new leader to prune", WAIT, () -> countInQueue("old") == 0);
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_leader") + " WHERE holder = ?", s.workerId()))
                .as("this client leads").isEqualTo(1);
    }

    @Test
    void aFailingRoundDoesNotStopPruning() {
        // The maintenance error policy is the same on every backend; the failure is injected with a
        // plpgsql trigger and a non-transactional sequence.
        Assumptions.assumeTrue(backend() == TestBackend.POSTGRESQL, "failure injected with plpgsql");
        Skipjack s = client(pruning().retention(JobState.COMPLETED, Duration.ofHours(1)));
        insertFinished("old", "completed", Duration.ofHours(2), 10);
        // Every delete fails while this trigger exists; a sequence (not rolled back) counts the attempts.
        execute("CREATE SEQUENCE \"" + schema + "\".prune_failures");
        execute("CREATE FUNCTION \"" + schema + "\".refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN PERFORM nextval('\"" + schema + "\".prune_failures'); RAISE EXCEPTION 'injected delete failure'; END $$");
        execute("CREATE TRIGGER refuse_delete BEFORE DELETE ON " + jobsTable()
                + " FOR EACH ROW EXECUTE FUNCTION \"" + schema + "\".refuse_delete()");
        s.start();

        await("three failed pruning rounds", WAIT, () -> queryLong(
                "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \"" + schema + "\".prune_failures") >= 3);
        assertThat(countInQueue("old")).isEqualTo(10);

        execute("DROP TRIGGER refuse_delete ON " + jobsTable());
        await("pruning to resume once deletes work again", WAIT, () -> countInQueue("old") == 0);
    }

    @Test
    void aRoundDeletesAtMostAHundredBatchesAndTheNextRoundTheRest() throws Exception {
        client(builder());
        insertFinished("old", "completed", Duration.ofHours(2), 100_500);
        JobPruner pruner = new JobPruner(dataSource, Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock()),
                Map.of(JobState.COMPLETED, Duration.ofHours(1)), () -> true);

        assertThat(pruner.pruneRound()).as("first round: 100 batches of 1,000").isEqualTo(100_000);
        assertThat(countInQueue("old")).isEqualTo(500);
        assertThat(pruner.pruneRound()).as("second round: the rest").isEqualTo(500);
        assertThat(pruner.pruneRound()).as("nothing left").isZero();
    }

    @Test
    void badRetentionSettingsAreRefused() {
        for (JobState live : new JobState[] {JobState.AVAILABLE, JobState.SCHEDULED, JobState.RUNNING, JobState.RETRYABLE}) {
            assertThatThrownBy(() -> builder().retention(live, Duration.ofHours(1)))
                    .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retention(" + live + ")").hasMessageContaining("terminal states")
                    .hasMessageContaining(live.name());
        }
        assertThatThrownBy(() -> builder().retention(null, Duration.ofHours(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retention(null)").hasMessageContaining("terminal states");
        assertThatThrownBy(() -> builder().retention(JobState.COMPLETED, Duration.ofSeconds(-1)))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retention(COMPLETED)").hasMessageContaining("retention of COMPLETED");
        assertThatThrownBy(() -> builder().retention(JobState.DISCARDED, null))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retention(DISCARDED)").hasMessageContaining("KEEP_FOREVER");
        assertThatThrownBy(() -> builder().retention(JobState.CANCELLED, Duration.ofDays(365 * 1000)))
                .as("too long to compute with, and not KEEP_FOREVER")
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "retention(CANCELLED)").hasMessageContaining("KEEP_FOREVER");
        assertThatThrownBy(() -> builder().pruneInterval(Duration.ZERO))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "pruneInterval").hasMessageContaining("pruneInterval");
        assertThatThrownBy(() -> builder().pruneInterval(null))
                .isInstanceOf(InvalidConfigurationException.class).hasFieldOrPropertyWithValue("option", "pruneInterval").hasMessageContaining("pruneInterval");
        // The limits themselves are accepted.
        builder().retention(JobState.COMPLETED, Duration.ZERO).retention(JobState.DISCARDED, Duration.ofDays(36_500))
                .pruneInterval(Duration.ofMillis(100)).build();
    }

    /** Waits for a control row inserted now to be pruned: a whole round starts after this call. */
    private void awaitOneMoreWholeRound() {
        insertFinished("control", "completed", Duration.ofDays(3650), 1);
        await("a control row to be pruned", WAIT, () -> countInQueue("control") == 0);
    }

    private void insertFinished(String queue, String state, Duration ago, int count) {
        String at = nowPlus(ago.negated());
        execute("INSERT INTO " + jobsTable() + " (queue, kind, state, attempt, created_at, finished_at)"
                + " SELECT '" + queue + "', 'k', '" + state + "', 1, " + at + ", " + at + " FROM " + backend().series(count));
    }

    private long countInQueue(String queue) {
        return queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE queue = ?", queue);
    }

    private static void assertStaysTrue(String what, Duration period, BooleanSupplier condition) {
        long end = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < end) {
            assertThat(condition.getAsBoolean()).as(what).isTrue();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted watching " + what);
            }
        }
    }
}
