package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The range {@link EnqueueOptions#withRunAt} takes is stored exactly on every backend: the latest
 * runAt is a job not due for eight thousand years, not one that runs at once (MySQL and MariaDB
 * once stored a NULL or zero date past their DATETIME range), and the earliest (the epoch) is a
 * job due now.
 * Values outside it are refused at the call (BadInputTest).
 */
class RunAtRangeTest extends EveryBackendTest {

    record Args(int n) {
    }

    @Test
    void theEarliestAndLatestRunAtAreStoredAsGiven() {
        Skipjack s = client(builder().kind(JobKind.of("work", Args.class)));
        long latest = s.enqueue("work", new Args(1), EnqueueOptions.defaults().withRunAt(EnqueueOptions.LATEST_RUN_AT));
        long earliest = s.enqueue("work", new Args(2), EnqueueOptions.defaults().withRunAt(EnqueueOptions.EARLIEST_RUN_AT));

        JobInfo notYet = s.admin().job(latest).orElseThrow();
        assertThat(notYet.runAt()).isEqualTo(EnqueueOptions.LATEST_RUN_AT);
        assertThat(notYet.state()).isEqualTo(JobState.SCHEDULED);
        JobInfo due = s.admin().job(earliest).orElseThrow();
        assertThat(due.runAt()).isEqualTo(EnqueueOptions.EARLIEST_RUN_AT);
        assertThat(due.state()).isEqualTo(JobState.AVAILABLE);
    }
}
