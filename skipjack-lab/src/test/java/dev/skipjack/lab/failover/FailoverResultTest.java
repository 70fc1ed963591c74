package dev.skipjack.lab.failover;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The RESULT line every failover run ends with. */
class FailoverResultTest {

    @Test
    void theLineStartsWithTheFieldsEveryLabWorkloadReportsThenThePerFaultFigures() {
        FailoverResult r = new FailoverResult("sync", "lease", 2.5, 30_000, List.of(
                new FailoverResult.Fault("perform_failover", 0, 1.6, 1.9, 2.0),
                new FailoverResult.Fault("hard_stop", 2048, 50.7, 55.74, 55.7)),
                0, 0, 0, 0, 17, 0, 0, 0, 16.8, 37, "ok");

        assertThat(r.line()).startsWith("RESULT workload=failover mode=sync job_mode=lease minutes=2.5 jobs_per_s=200 failovers=2"
                + " lost=0 unexplained_duplicates=0 recovery_max_s=55.7 perform_failovers=1 hard_stops=1"
                + " recovery_s=1.9,55.7 writable_s=1.6,50.7 leader_renewed_s=2.0,55.7 unflushed_wal_bytes=0,2048 rescue_max_s=16.8"
                + " rescues_after_failover=37 lost_enqueues=0 lost_completions=0 explained_duplicates=17");
        assertThat(r.line()).endsWith("verdict=ok");
    }

    @Test
    void lostAddsEnqueuesCompletionsAndAuditLossesAndARunWithoutFaultsSaysNone() {
        FailoverResult r = new FailoverResult("async", "transactional", 1, 600, List.of(), 3, 2, 1, 0, 0, 0, 0, 0, null, 0, "measured");

        assertThat(r.lost()).isEqualTo(6);
        assertThat(r.recoveryMaxSeconds()).isNull();
        assertThat(r.line()).contains(" failovers=0 lost=6 ", " recovery_max_s=none ", " recovery_s=none ",
                " rescue_max_s=none ", " jobs_per_s=10 ").endsWith("verdict=measured");
    }
}
