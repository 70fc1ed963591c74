package dev.skipjack.internal.worker;

import dev.skipjack.JobReporter;
import dev.skipjack.Limits;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the handler of one execution (id, attempt) reported and {@link ReportWriter} has not written
 * yet. A report only takes a short lock and adds to a buffer, never a connection; nothing is
 * allocated for the buffer until the first report, so a job that reports nothing costs this
 * object and its lock. Reports take this object's monitor; writes take {@link #writing}. The
 * buffer is bounded like the stored log: a handler logging faster than the writer
 * keeps the latest {@link Limits#MAX_LOG_LINES} lines.
 */
final class ExecutionReports implements JobReporter {

    /** A line numbered in its attempt, from 1. */
    record Line(int seq, String text) {
    }

    /** What one flush takes out of the buffer. */
    record Drained(ExecutionReports owner, List<Line> lines, Integer percent, String message, boolean firstWrite) {

        boolean hasProgress() {
            return percent != null;
        }
    }

    final long id;
    final int attempt;
    /** Held by whoever writes this execution's reports, so two writes of it never overlap. */
    final ReentrantLock writing = new ReentrantLock();
    private ArrayDeque<Line> lines;
    private int nextSeq = 1;
    private Integer percent;
    private String message;
    private boolean progressPending;
    private boolean closed;
    /** Whether a write of this execution's lines succeeded yet (older attempts' lines are trimmed at the first). */
    private boolean linesWritten;
    private volatile boolean pending;

    ExecutionReports(long id, int attempt) {
        this.id = id;
        this.attempt = attempt;
    }

    @Override
    public void progress(int percent, String message) {
        synchronized (this) {
            if (closed) {
                return;
            }
            this.percent = percent;
            this.message = message;
            progressPending = true;
            pending = true;
        }
    }

    @Override
    public void log(String line) {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (lines == null) {
                lines = new ArrayDeque<>();
            }
            lines.addLast(new Line(nextSeq++, line));
            if (lines.size() > Limits.MAX_LOG_LINES) {
                lines.removeFirst();
            }
            pending = true;
        }
    }

    /** Whether something reported waits to be written; a volatile read, for the periodic writer's scan. */
    boolean hasPending() {
        return pending;
    }

    /** Refuses further reports: the handler returned, or the execution stopped counting. */
    void close() {
        synchronized (this) {
            closed = true;
        }
    }

    /** Takes what waits to be written; null when nothing does. */
    Drained drain() {
        synchronized (this) {
            if (!pending) {
                return null;
            }
            List<Line> taken = lines == null ? List.of() : new ArrayList<>(lines);
            if (lines != null) {
                lines.clear();
            }
            Drained d = new Drained(this, taken, progressPending ? percent : null, progressPending ? message : null,
                    !linesWritten);
            progressPending = false;
            pending = false;
            return d;
        }
    }

    /** The write of {@code d} succeeded. */
    void written(Drained d) {
        synchronized (this) {
            if (!d.lines().isEmpty()) {
                linesWritten = true;
            }
        }
    }

    /** The write of {@code d} failed: its reports wait again, before anything reported since. */
    void restore(Drained d) {
        synchronized (this) {
            if (!d.lines().isEmpty()) {
                if (lines == null) {
                    lines = new ArrayDeque<>();
                }
                for (int i = d.lines().size() - 1; i >= 0; i--) {
                    lines.addFirst(d.lines().get(i));
                }
                while (lines.size() > Limits.MAX_LOG_LINES) {
                    lines.removeFirst();
                }
                pending = true;
            }
            if (d.hasProgress() && !progressPending) {
                percent = d.percent();
                message = d.message();
                progressPending = true;
                pending = true;
            }
        }
    }
}
