package dev.skipjack;

import java.time.Instant;
import java.util.List;

/**
 * What a job's handler reported while it ran (issue 12, item 6), for operators:
 * {@link SkipjackAdmin#jobLog(long)}, {@code skipjack jobs show} and the dashboard's job view.
 * Empty ({@code progress} null, no lines) for a job that reported nothing, and once the job is
 * deleted (retention or an operator): reports go with their job.
 *
 * @param jobId    the job
 * @param progress the latest progress reported, by whichever attempt reported it last; null when none
 * @param lines    the lines kept, oldest first: per attempt the latest {@link Limits#MAX_LOG_LINES},
 *                 for the latest {@link Limits#MAX_LOG_ATTEMPTS} attempts that logged
 */
public record JobLog(long jobId, Progress progress, List<Line> lines) {

    public JobLog {
        lines = List.copyOf(lines);
    }

    /**
     * @param attempt   the attempt that reported it
     * @param percent   0-100
     * @param message   the message given with it; null when none
     * @param updatedAt when it was written (database clock)
     */
    public record Progress(int attempt, int percent, String message, Instant updatedAt) {
    }

    /**
     * @param attempt  the attempt that logged it
     * @param number   its number in that attempt, from 1; a gap before the first line kept means the
     *                 attempt's older lines were dropped
     * @param loggedAt when it was written (database clock); lines are written about once a second,
     *                 so lines reported close together may share a time
     * @param text     the line
     */
    public record Line(int attempt, int number, Instant loggedAt, String text) {
    }
}
