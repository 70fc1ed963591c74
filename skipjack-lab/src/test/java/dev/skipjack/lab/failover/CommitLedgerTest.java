package dev.skipjack.lab.failover;

import dev.skipjack.lab.failover.CommitLedger.JobRow;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the failover run knows was committed must all be there after the run. */
class CommitLedgerTest {

    @Test
    void everyAcknowledgedJobPresentAndEveryCompletionKeptIsNoLoss() {
        CommitLedger ledger = new CommitLedger();
        ledger.acknowledge(0, 3);
        ledger.completedBeforeFault(List.of(new JobRow(0, "completed", 1), new JobRow(1, "running", 1)));

        CommitLedger.Losses losses = ledger.check(List.of(new JobRow(0, "completed", 1),
                new JobRow(1, "completed", 2), new JobRow(2, "available", 0)));

        assertThat(losses.total()).isZero();
        assertThat(losses.examples()).isEmpty();
        assertThat(ledger.acknowledgedCount()).isEqualTo(3);
        assertThat(ledger.completedCount()).isEqualTo(1);
    }

    @Test
    void anAcknowledgedJobWithoutARowIsALostEnqueue() {
        CommitLedger ledger = new CommitLedger();
        ledger.acknowledge(0, 2);
        ledger.acknowledge(5, 6); // a failed call in between: jobs 2-4 were never acknowledged

        CommitLedger.Losses losses = ledger.check(List.of(new JobRow(0, "completed", 1), new JobRow(3, "completed", 1)));

        assertThat(losses.lostEnqueues()).isEqualTo(2);
        assertThat(losses.examples()).containsExactly("enqueue of job n=1 lost", "enqueue of job n=5 lost");
    }

    @Test
    void aCompletedJobRunAgainOrGoneIsALostCompletion() {
        CommitLedger ledger = new CommitLedger();
        ledger.acknowledge(0, 2);
        ledger.completedBeforeFault(List.of(new JobRow(0, "completed", 1), new JobRow(1, "completed", 1),
                new JobRow(7, "completed", 1)));

        // 0: completed again in a later attempt; 1: acknowledged and gone (a lost enqueue, counted once);
        // 7: never acknowledged (its enqueue call failed), seen completed, then gone.
        CommitLedger.Losses losses = ledger.check(List.of(new JobRow(0, "completed", 2)));

        assertThat(losses.lostCompletions()).isEqualTo(2);
        assertThat(losses.lostEnqueues()).isEqualTo(1);
        assertThat(losses.total()).isEqualTo(3);
        assertThat(losses.examples()).contains("completion of job n=0 attempt 1 lost (now completed, attempt 2)",
                "completion of job n=7 attempt 1 lost (now gone)");
    }

    @Test
    void aRangeBackwardsIsRefused() {
        assertThatThrownBy(() -> new CommitLedger().acknowledge(5, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobs 5 to 4");
    }
}
