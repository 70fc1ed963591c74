package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.StatementLog;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-6 bulk enqueue larger than one insert statement: its chunks are inserted while the next ones
 * are still being validated on another thread, and it keeps every promise of a call validated
 * whole first. A bad request anywhere fails the call with its own error and leaves nothing of it
 * (one in the first chunk before any statement runs; an Error from a serializer too); in the
 * caller's transaction only the enqueue is undone; a pending interrupt does not fail it; a unique key repeated across chunks gives one job; every chunk carries the
 * enqueuer's context; a call refused early stops validating, and its thread does not outlive it.
 */
class BulkEnqueueValidatedAheadTest extends EveryBackendTest {

    /** More than one insert statement takes: several chunks. */
    private static final int JOBS = 12_000;

    record Args(int n) {
    }

    private Skipjack enqueuer(Skipjack.Builder builder) {
        return client(builder.kind(JobKind.of("bulk", Args.class)));
    }

    /** {@link #JOBS} good requests, but the one at {@code badAt} has args that are not an {@code Args}. */
    private static List<JobRequest> withBadRequestAt(int badAt) {
        List<JobRequest> requests = new ArrayList<>(JOBS);
        for (int i = 0; i < JOBS; i++) {
            requests.add(i == badAt ? JobRequest.of("bulk", Map.of("n", "not a number")) : JobRequest.of("bulk", new Args(i)));
        }
        return requests;
    }

    private long jobs() {
        return queryLong("SELECT count(*) FROM " + jobsTable());
    }

    private static boolean validationThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("skipjack-enqueue-validation") && t.isAlive());
    }

    @Test
    void aBadRequestInALaterChunkFailsTheCallWithItsOwnErrorAndKeepsNothing() {
        Skipjack s = enqueuer(builder());
        String alone = null;
        try {
            s.enqueue("bulk", Map.of("n", "not a number"));
        } catch (InvalidArgsException e) {
            alone = e.getMessage();
        }
        assertThat(alone).as("the bad request alone is refused").isNotNull();

        String expected = alone;
        assertThatThrownBy(() -> s.enqueueAll(withBadRequestAt(JOBS - 1_000)))
                .isInstanceOf(InvalidArgsException.class)
                .hasMessage(expected)
                .satisfies(e -> assertThat(e.getSuppressed()).as("where the enqueue was called")
                        .anySatisfy(where -> assertThat(where.getMessage()).contains("validated on thread")));
        assertThat(jobs()).as("jobs left by the failed call").isZero();
    }

    @Test
    void aBadRequestInTheFirstChunkFailsBeforeAnyStatement() {
        StatementLog log = new StatementLog();
        Skipjack s = enqueuer(Skipjack.builder(log.wrap(dataSource)).schema(schema));
        log.clear();

        assertThatThrownBy(() -> s.enqueueAll(withBadRequestAt(3))).isInstanceOf(InvalidArgsException.class);
        assertThat(log.prepared()).as("statements run for the refused call").isEmpty();
        assertThat(jobs()).isZero();
    }

    @Test
    void inTheCallersTransactionABadRequestUndoesTheEnqueueAndNothingBeforeIt() throws Exception {
        Skipjack s = enqueuer(builder());
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            long earlier = s.enqueue(c, "bulk", new Args(-1));
            assertThatThrownBy(() -> s.enqueueAll(c, withBadRequestAt(JOBS - 1))).isInstanceOf(InvalidArgsException.class);
            List<Long> later = s.enqueueAll(c, withBadRequestAt(-1));
            c.commit();
            c.setAutoCommit(true);

            assertThat(later).hasSize(JOBS).isSorted();
            assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ?", earlier)).isEqualTo(1);
        }
        assertThat(jobs()).as("the earlier job and the later call's").isEqualTo(1 + JOBS);
    }

    @Test
    void aUniqueKeyRepeatedInALaterChunkIsADuplicateOfItsFirstRequest() {
        Skipjack s = enqueuer(builder());
        EnqueueOptions unique = EnqueueOptions.defaults().withUnique(Unique.byArgs());
        List<JobRequest> requests = new ArrayList<>(JOBS);
        for (int i = 0; i < JOBS; i++) {
            requests.add(i == 10 || i == JOBS - 10 ? JobRequest.of("bulk", new Args(-7), unique) : JobRequest.of("bulk", new Args(i)));
        }
        List<EnqueueResult> results = s.enqueueAllWithResults(requests);

        assertThat(results).hasSize(JOBS);
        assertThat(results.get(10).duplicate()).isFalse();
        assertThat(results.get(JOBS - 10)).isEqualTo(new EnqueueResult(results.get(10).id(), true));
        assertThat(results.stream().filter(EnqueueResult::duplicate).count()).isEqualTo(1);
        assertThat(jobs()).isEqualTo(JOBS - 1);
    }

    @Test
    void everyChunkCarriesTheEnqueuersContextAskedOncePerCall() {
        AtomicInteger asked = new AtomicInteger();
        Skipjack s = enqueuer(builder().interceptor(new JobInterceptor() {
            @Override
            public void onEnqueue(Map<String, String> context) {
                asked.incrementAndGet();
                context.put("request", "bulk-call");
            }
        }));
        List<Long> ids = s.enqueueAll(withBadRequestAt(-1));

        assertThat(ids).hasSize(JOBS).doesNotHaveDuplicates();
        assertThat(asked).as("interceptor asked for the call's context").hasValue(1);
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE trace_context LIKE '%bulk-call%'"))
                .as("jobs stored with the context").isEqualTo(JOBS);
    }

    /** Args whose serializer breaks with an Error (a bug in it, a class that fails to load) for one value. */
    record Exploding(int n) {
        static final int BREAKS_AT = JOBS - 1;

        @Override
        public int n() {
            if (n == BREAKS_AT) {
                throw new AssertionError("the serializer's bug");
            }
            return n;
        }
    }

    @Test
    void anErrorFromASerializerAfterTheFirstChunkKeepsNothingOfTheCallInEitherTransaction() throws Exception {
        Skipjack s = client(builder().kind(JobKind.of("exploding", Exploding.class)));
        List<JobRequest> requests = new ArrayList<>(JOBS);
        for (int i = 0; i < JOBS; i++) {
            requests.add(JobRequest.of("exploding", new Exploding(i)));
        }

        assertThatThrownBy(() -> s.enqueueAll(requests)).isInstanceOf(AssertionError.class)
                .hasMessage("the serializer's bug");
        assertThat(jobs()).as("jobs left by the call in its own transaction").isZero();

        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            s.enqueue(c, "exploding", new Exploding(-1));
            assertThatThrownBy(() -> s.enqueueAll(c, requests)).isInstanceOf(AssertionError.class);
            c.commit();
            c.setAutoCommit(true);
        }
        assertThat(jobs()).as("the caller's own job, and nothing of the failed call").isEqualTo(1);
    }

    @Test
    void aPendingInterruptNeitherFailsTheCallNorIsLost() {
        Skipjack s = enqueuer(builder());
        List<JobRequest> requests = withBadRequestAt(-1);
        List<Long> ids;
        boolean stillInterrupted;
        Thread.currentThread().interrupt();
        try {
            ids = s.enqueueAll(requests);
        } finally {
            stillInterrupted = Thread.interrupted();
        }
        assertThat(ids).hasSize(JOBS);
        assertThat(stillInterrupted).as("the caller's interrupt flag, kept for it").isTrue();
        assertThat(jobs()).isEqualTo(JOBS);
    }

    /** Args that count how often they are serialized (Jackson writes a record through its accessors). */
    record Counted(int n) {
        static final AtomicInteger SERIALIZED = new AtomicInteger();

        @Override
        public int n() {
            SERIALIZED.incrementAndGet();
            return n;
        }
    }

    @Test
    void aCallRefusedEarlyStopsValidatingTheRestAndItsThreadEnds() {
        Skipjack s = client(builder().kind(JobKind.of("counted", Counted.class)));
        int many = 200_000;
        List<JobRequest> requests = new ArrayList<>(many);
        requests.add(JobRequest.of("counted", Map.of("n", "not a number")));
        for (int i = 1; i < many; i++) {
            requests.add(JobRequest.of("counted", new Counted(i)));
        }
        Counted.SERIALIZED.set(0);

        assertThatThrownBy(() -> s.enqueueAll(requests)).isInstanceOf(InvalidArgsException.class);
        await("the validation thread to end", Duration.ofSeconds(10), () -> !validationThreadAlive());
        assertThat(Counted.SERIALIZED.get()).as("requests validated after the call was refused at its first")
                .isLessThan(many / 4);

        s.enqueueAll(requests.subList(1, 20_000));
        await("the validation thread of a completed call to end", Duration.ofSeconds(10), () -> !validationThreadAlive());
        assertThat(jobs()).isEqualTo(20_000 - 1);
    }
}
