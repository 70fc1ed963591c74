package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-4 for jobs run together: transactional jobs whose handlers leave their connection alone share
 * one transaction (TransactionalRunner's groups). Each keeps its own outcome, and the group commits
 * or rolls back as one: a worker that dies in the middle of a group leaves every job of it
 * available again at once, attempt unchanged, including the jobs whose handlers already returned.
 */
class TransactionalGroupTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final JobKind<Args> QUIET = JobKind.of("quiet", Args.class);
    /** Enough jobs in a row without a touch of the connection for the kind to be grouped, and for groups to grow. */
    private static final int WARM_UP = 250;

    private final CountDownLatch gate = new CountDownLatch(1);

    @AfterEach
    void openGate() {
        gate.countDown();
    }

    private List<Long> enqueue(Skipjack s, int from, int count) {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            requests.add(JobRequest.of(QUIET, new Args(from + i)));
        }
        return s.enqueueAll(requests);
    }

    private void awaitAllTerminal() {
        await("every job terminal", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state NOT IN ('completed', 'discarded', 'cancelled')") == 0);
    }

    private JobRow row(long id) {
        return JobRow.load(dataSource, schema, id);
    }

    @Test
    void aWorkerThatDiesInTheMiddleOfAGroupLeavesEveryJobOfItAvailableWithItsAttemptUnchanged() {
        int blocking = 1_010;
        CountDownLatch blocked = new CountDownLatch(1);
        Set<Integer> ran = ConcurrentHashMap.newKeySet();
        // One job thread, so the jobs after the warm-up are claimed as one group, in order.
        Skipjack s = client(builder().queue("default", 1).transactionalHandler(QUIET, (job, tx) -> {
            ran.add(job.args().n());
            if (job.args().n() == blocking) {
                blocked.countDown();
                // Ignores the interrupt, like a hung handler: shutdown must abort the connection.
                while (true) {
                    try {
                        gate.await();
                        break;
                    } catch (InterruptedException ignored) {
                        // keep hanging
                    }
                }
            }
            return Outcome.complete();
        }));
        enqueue(s, 0, WARM_UP);
        s.start();
        awaitAllTerminal();

        List<Long> ids = enqueue(s, 1_000, 30);
        await("the blocking job to start", WAIT, () -> blocked.getCount() == 0);
        // The handlers of the jobs claimed before it returned complete, in its transaction.
        assertThat(ran).contains(1_000, 1_001, 1_009);
        s.stop(Duration.ofMillis(200)); // the handler hangs on: its connection is aborted, as if the worker died

        await("the aborted transaction to roll back", WAIT, () -> queryLong("SELECT count(*) FROM " + jobsTable()
                + " WHERE state = 'available'") == 30);
        for (long id : ids) {
            JobRow r = row(id);
            assertThat(r.state()).as("job %d", id).isEqualTo("available");
            assertThat(r.attempt()).as("job %d attempt", id).isZero();
            assertThat(r.errors()).as("job %d errors", id).isEmpty();
        }
    }

    @Test
    void eachJobOfAGroupKeepsItsOwnOutcome() {
        Skipjack s = client(builder().queue("default", 2).transactionalHandler(QUIET,
                KindOptions.defaults().withMaxAttempts(1), (job, tx) -> {
                    int n = job.args().n();
                    if (n >= 1_000 && n % 3 == 0) {
                        throw new IllegalStateException("job " + n + " fails");
                    }
                    return n >= 1_000 && n % 3 == 1 ? Outcome.cancel("job " + n + " cancels") : Outcome.complete();
                }));
        enqueue(s, 0, WARM_UP);
        s.start();
        awaitAllTerminal();

        List<Long> ids = enqueue(s, 1_000, 300);
        awaitAllTerminal();
        for (int i = 0; i < ids.size(); i++) {
            int n = 1_000 + i;
            JobRow r = row(ids.get(i));
            String expected = n % 3 == 0 ? "discarded" : n % 3 == 1 ? "cancelled" : "completed";
            assertThat(r.state()).as("job n=%d", n).isEqualTo(expected);
            assertThat(r.attempt()).as("job n=%d attempt", n).isEqualTo(1);
            assertThat(r.errors()).as("job n=%d errors", n).hasSize(n % 3 == 2 ? 0 : 1);
        }
    }
}
