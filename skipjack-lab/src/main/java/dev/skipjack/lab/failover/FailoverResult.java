package dev.skipjack.lab.failover;

import java.util.List;
import java.util.Locale;

/**
 * The figures of one failover run and its RESULT line. Recovery of a fault is measured from the
 * moment the lab starts it (the {@code perform failover} call, or the SIGKILL) to the first job
 * completed on the new primary; {@code writable} is the part of it until a new primary took a
 * connection, the HA engine's share.
 *
 * @param mode               sync or async replication
 * @param jobMode            how the jobs ran: lease or transactional
 * @param minutes            the whole run, faults and drain
 * @param completed          jobs completed in the run
 * @param faults             the faults, in order
 * @param lostEnqueues       enqueues the producer was told committed whose job row is gone
 * @param lostCompletions    jobs the primary showed completed before a fault that are not completed in that
 *                           attempt after the run
 * @param auditLost          completed jobs without an audit row for the completing attempt, and jobs missing
 * @param unexplainedDuplicates extra executions no recorded fault explains
 * @param explainedDuplicates   extra executions a recorded fault (a failover, a kill) explains
 * @param stuck              jobs not finished after the drain
 * @param overlappingLeases  executions of one job that overlapped
 * @param attemptMismatches  jobs whose attempts, errors and audit do not add up
 * @param rescueMaxSeconds   worst time from a worker kill after a failover to the rescue of its jobs, or null
 * @param rescuesAfterFailover jobs rescued from expired leases after the first fault: the leader's rescuer at
 *                           work on a new primary
 * @param verdict            {@code ok}: nothing lost, no unexplained duplicate, nothing else wrong;
 *                           {@code FAILED}: a violation; {@code measured}: asynchronous replication
 *                           lost what it may lose (acknowledged commits), and nothing else is wrong
 */
public record FailoverResult(String mode, String jobMode, double minutes, long completed, List<Fault> faults, long lostEnqueues,
                             long lostCompletions, long auditLost, long unexplainedDuplicates, long explainedDuplicates, long stuck,
                             long overlappingLeases, long attemptMismatches, Double rescueMaxSeconds,
                             long rescuesAfterFailover, String verdict) {

    /**
     * One injected fault and what it took to recover.
     *
     * @param kind             {@code perform_failover} or {@code hard_stop}
     * @param lagBytes         WAL bytes the standby had not flushed when the fault began
     * @param writableSeconds  from the fault to a connection to the new primary
     * @param recoverySeconds  from the fault to the first job completed on the new primary
     * @param leaderSeconds    from the fault to the maintenance leader's lease renewed on the new primary
     */
    public record Fault(String kind, long lagBytes, double writableSeconds, double recoverySeconds, double leaderSeconds) {
    }

    public FailoverResult {
        faults = List.copyOf(faults);
    }

    /** Jobs completed per second over the whole run. */
    public double jobsPerSecond() {
        return minutes > 0 ? completed / (minutes * 60) : 0;
    }

    /** Everything lost: acknowledged enqueues and seen completions gone, and completions without their audit row. */
    public long lost() {
        return lostEnqueues + lostCompletions + auditLost;
    }

    /** The worst recovery over all faults, or null without a fault. */
    public Double recoveryMaxSeconds() {
        return faults.stream().map(Fault::recoverySeconds).max(Double::compare).orElse(null);
    }

    private long count(String kind) {
        return faults.stream().filter(f -> f.kind().equals(kind)).count();
    }

    /** The line a run ends with; the first fields are the ones every lab workload reports. */
    public String line() {
        return String.format(Locale.ROOT, "RESULT workload=failover mode=%s job_mode=%s minutes=%.1f jobs_per_s=%.0f failovers=%d"
                        + " lost=%d unexplained_duplicates=%d recovery_max_s=%s perform_failovers=%d hard_stops=%d"
                        + " recovery_s=%s writable_s=%s leader_renewed_s=%s unflushed_wal_bytes=%s rescue_max_s=%s rescues_after_failover=%d"
                        + " lost_enqueues=%d lost_completions=%d explained_duplicates=%d stuck=%d overlapping_leases=%d attempt_mismatches=%d verdict=%s",
                mode, jobMode, minutes, jobsPerSecond(), faults.size(), lost(), unexplainedDuplicates,
                seconds(recoveryMaxSeconds()), count("perform_failover"), count("hard_stop"),
                list(faults.stream().map(Fault::recoverySeconds).toList()),
                list(faults.stream().map(Fault::writableSeconds).toList()),
                list(faults.stream().map(Fault::leaderSeconds).toList()),
                faults.isEmpty() ? "none" : String.join(",", faults.stream().map(f -> Long.toString(f.lagBytes())).toList()),
                seconds(rescueMaxSeconds), rescuesAfterFailover, lostEnqueues, lostCompletions, explainedDuplicates, stuck, overlappingLeases,
                attemptMismatches, verdict);
    }

    private static String seconds(Double s) {
        return s == null ? "none" : String.format(Locale.ROOT, "%.1f", s);
    }

    /** Per-fault figures in fault order, comma-separated ({@code none} without a fault). */
    private static String list(List<Double> values) {
        if (values.isEmpty()) {
            return "none";
        }
        return String.join(",", values.stream().map(FailoverResult::seconds).toList());
    }
}
