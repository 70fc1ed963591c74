package dev.skipjack.audit;

import java.util.List;

/**
 * What the audit checker found. Every count but {@code explainedDuplicates} is a violation.
 *
 * @param jobs                  job rows in the table
 * @param missing               jobs the driver enqueued that are not in the table at all
 * @param lost                  completed jobs with no audit row for the attempt that completed them
 * @param stuck                 jobs not in a terminal state
 * @param explainedDuplicates   extra executions explained by a recorded fault (lease mode only)
 * @param unexplainedDuplicates extra executions nothing explains
 * @param overlappingLeases     pairs of executions of one job that ran at the same time
 * @param attemptMismatches     jobs whose attempt, error history and audit do not add up
 * @param recoveryMaxSeconds    worst time from a recorded kill to the rescue of that worker's jobs, or null
 * @param examples              up to 10 example job ids per violated check, for the message
 */
public record AuditReport(long jobs, long missing, long lost, long stuck, long explainedDuplicates,
                          long unexplainedDuplicates, long overlappingLeases, long attemptMismatches,
                          Double recoveryMaxSeconds, List<String> examples) {

    public boolean ok() {
        return missing == 0 && lost == 0 && stuck == 0 && unexplainedDuplicates == 0 && overlappingLeases == 0
                && attemptMismatches == 0;
    }

    /** One line for logs and assertion messages. */
    public String summary() {
        return (ok() ? "AUDIT OK" : "AUDIT FAILED") + ": jobs=" + jobs + " missing=" + missing + " lost=" + lost
                + " stuck=" + stuck + " explained_duplicates=" + explainedDuplicates
                + " unexplained_duplicates=" + unexplainedDuplicates + " overlapping_leases=" + overlappingLeases
                + " attempt_mismatches=" + attemptMismatches
                + (recoveryMaxSeconds == null ? "" : String.format(" recovery_max_s=%.1f", recoveryMaxSeconds))
                + (examples.isEmpty() ? "" : " " + String.join(" ", examples));
    }

    @Override
    public String toString() {
        return summary();
    }
}
