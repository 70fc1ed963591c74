package dev.skipjack.cli.demo;

import dev.skipjack.JobState;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/**
 * The live progress of a run: job counts per state and the rate at which jobs finish. On a
 * terminal it redraws one line in place; into a file or pipe it writes at most a line a second,
 * so logs stay readable.
 */
public final class ProgressLine {

    private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;

    private final PrintWriter out;
    private final boolean redrawInPlace;
    private final long startNanos = System.nanoTime();
    private long lastShownNanos = startNanos;
    private long lastShownTerminal;
    private int lastLineLength;

    public ProgressLine(PrintWriter out, boolean redrawInPlace) {
        this.out = out;
        this.redrawInPlace = redrawInPlace;
    }

    /** Shows {@code counts} unless a line was written too recently for this output. */
    public void update(Map<JobState, Long> counts) {
        long now = System.nanoTime();
        if (!redrawInPlace && now - lastShownNanos < LOG_INTERVAL_NANOS) {
            return;
        }
        long terminal = terminalCount(counts);
        double rate = (terminal - lastShownTerminal) / Math.max((now - lastShownNanos) / 1e9, 1e-3);
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%6.1f s ", (now - startNanos) / 1e9));
        // States with no jobs are left out, which keeps the line short enough for a terminal.
        counts.forEach((state, count) -> {
            if (count > 0 || state == JobState.COMPLETED) {
                line.append(String.format(Locale.ROOT, " %s %,d", state.dbValue(), count));
            }
        });
        line.append(String.format(Locale.ROOT, "  | %,.0f jobs/s", rate));
        if (redrawInPlace) {
            int shorterBy = lastLineLength - line.length();
            lastLineLength = line.length();
            out.print("\r" + line + " ".repeat(Math.max(0, shorterBy)));
        } else {
            out.println(line);
        }
        out.flush();
        lastShownNanos = now;
        lastShownTerminal = terminal;
    }

    /** Ends the redrawn line so what follows starts on a line of its own. Calling it again does nothing. */
    public void finish() {
        if (redrawInPlace && lastLineLength > 0) {
            out.println();
            out.flush();
            lastLineLength = 0;
        }
    }

    public static long terminalCount(Map<JobState, Long> counts) {
        return counts.entrySet().stream().filter(e -> e.getKey().isTerminal()).mapToLong(Map.Entry::getValue).sum();
    }
}
