package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** F-7: delayed jobs do not run before their run_at; lower priority numbers run first. */
class DelayedAndPriorityTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    /** When each job's handler started, read from the database clock inside the handler. */
    private final Map<Long, Instant> handlerStart = new ConcurrentHashMap<>();

    private Skipjack startedRecordingStartTimes() {
        Skipjack s = client(builder().queue("default", 4).handler(JobKind.of("timed", Args.class), job -> {
            handlerStart.put(job.id(), dbClock());
            return Outcome.complete();
        }));
        s.start();
        return s;
    }

    /**
     * A job read while the database clock was still before its run_at waits, untouched, as
     * 'scheduled'. Read after it (the test's thread stalled past the delay on a loaded machine),
     * the row says nothing about waiting, and the later assertions still hold it to its run_at.
     */
    private void assertScheduledIfReadBeforeDue(JobRow read) {
        Instant afterTheRead = dbClock();
        if (afterTheRead.isBefore(read.runAt())) {
            assertThat(read.state()).as("read %s before its run_at %s", afterTheRead, read.runAt()).isEqualTo("scheduled");
            assertThat(read.attempt()).isZero();
        }
    }

    private Instant dbClock() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void delayedJobIsScheduledAndDoesNotRunBeforeItsRunAt() {
        Skipjack s = startedRecordingStartTimes();
        long id = s.enqueue("timed", new Args(1), EnqueueOptions.defaults().withDelay(Duration.ofSeconds(2)));

        JobRow scheduled = row(id);
        // Read before it is due (2 s), it waits as 'scheduled', run_at on the database clock.
        assertScheduledIfReadBeforeDue(scheduled);
        assertThat(Duration.between(scheduled.createdAt(), scheduled.runAt()).toMillis()).isCloseTo(2_000L, within(5L));

        await("delayed job completed", WAIT, () -> row(id).state().equals("completed"));
        JobRow done = row(id);
        assertThat(done.attemptedAt()).isAfterOrEqualTo(scheduled.runAt());
        assertThat(handlerStart.get(id)).isAfterOrEqualTo(scheduled.runAt());
        assertThat(done.attempt()).isEqualTo(1);
    }

    @Test
    void runAtInstantIsStoredAndRespected() {
        Skipjack s = startedRecordingStartTimes();
        Instant due = dbClock().plusMillis(1_500);
        long id = s.enqueue("timed", new Args(1), EnqueueOptions.defaults().withRunAt(due));

        JobRow scheduled = row(id);
        assertScheduledIfReadBeforeDue(scheduled);
        assertThat(Duration.between(due, scheduled.runAt()).abs()).isLessThanOrEqualTo(Duration.ofMillis(1));

        await("job due at " + due + " completed", WAIT, () -> row(id).state().equals("completed"));
        assertThat(handlerStart.get(id)).isAfterOrEqualTo(scheduled.runAt());
        assertThat(row(id).attemptedAt()).isAfterOrEqualTo(scheduled.runAt());
    }

    @Test
    void runAtInThePastIsAvailableAtOnce() {
        Skipjack s = client(builder().kind(JobKind.of("timed", Args.class)));
        Instant past = dbClock().minusSeconds(3_600);
        long id = s.enqueue("timed", new Args(1), EnqueueOptions.defaults().withRunAt(past));

        JobRow r = row(id);
        assertThat(r.state()).isEqualTo("available");
        assertThat(Duration.between(past, r.runAt()).abs()).isLessThanOrEqualTo(Duration.ofMillis(1));
    }

    @Test
    void delayedJobsWaitWhileDueJobsRun() {
        Skipjack s = startedRecordingStartTimes();
        long later = s.enqueue("timed", new Args(1), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        long now = s.enqueue("timed", new Args(2));

        await("due job completed", WAIT, () -> row(now).state().equals("completed"));
        // A job enqueued after the delayed one has run; the delayed one is untouched and waiting.
        JobRow r = row(later);
        assertThat(r.state()).isEqualTo("scheduled");
        assertThat(r.attempt()).isZero();
        assertThat(handlerStart).doesNotContainKey(later);
    }

    @Test
    void lowerPriorityNumbersRunFirstThenEnqueueOrder() {
        List<Long> order = Collections.synchronizedList(new ArrayList<>());
        Skipjack s = client(builder().queue("default", 1).handler(JobKind.of("ordered", Args.class), job -> {
            order.add(job.id());
            return Outcome.complete();
        }));
        Random random = new Random(42);
        List<Integer> priorities = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            priorities.add(random.nextInt(Limits.MAX_PRIORITY + 1));
        }
        priorities.add(0);
        priorities.add(Limits.MAX_PRIORITY);
        Collections.shuffle(priorities, random);
        List<Long> ids = new ArrayList<>();
        Map<Long, Integer> priorityOf = new ConcurrentHashMap<>();
        for (int p : priorities) {
            // Separate enqueues: run_at grows with enqueue order, so ties on priority keep FIFO.
            long id = s.enqueue("ordered", new Args(p), EnqueueOptions.defaults().withPriority(p));
            ids.add(id);
            priorityOf.put(id, p);
        }
        s.start();

        await("all ran", WAIT, () -> order.size() == ids.size());
        await("all completed", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'completed'") == ids.size());
        List<Long> expected = new ArrayList<>(ids);
        expected.sort(Comparator.<Long>comparingInt(priorityOf::get).thenComparing(ids::indexOf));
        assertThat(order).containsExactlyElementsOf(expected);
        // The stored priorities are what the jobs were enqueued with.
        for (long id : ids) {
            assertThat(row(id).priority()).isEqualTo(priorityOf.get(id));
        }
    }

    @Test
    void priorityAppliesAcrossOneBatchEnqueueToo() {
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        Skipjack s = client(builder().queue("default", 1).handler(JobKind.of("ordered", Args.class), job -> {
            ran.add(job.args().n());
            return Outcome.complete();
        }));
        List<JobRequest> batch = new ArrayList<>();
        int[] priorities = {50, 3, 100, 0, 3, 7, 0, 99};
        for (int i = 0; i < priorities.length; i++) {
            // n encodes (priority, position) so the expected order is independent of the ids.
            batch.add(JobRequest.of("ordered", new Args(priorities[i] * 100 + i),
                    EnqueueOptions.defaults().withPriority(priorities[i])));
        }
        s.enqueueAll(batch);
        s.start();

        await("all ran", WAIT, () -> ran.size() == priorities.length);
        assertThat(ran).containsExactly(3, 6, 301, 304, 705, 5000, 9907, 10002);
    }
}
