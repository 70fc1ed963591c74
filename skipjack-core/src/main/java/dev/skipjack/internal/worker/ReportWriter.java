package dev.skipjack.internal.worker;

import dev.skipjack.Limits;
import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javax.sql.DataSource;

/**
 * Writes what handlers reported ({@code Job.progress}, {@code Job.log}; issue 12, item 6): the lines
 * (insert_job_logs.sql), the latest progress (upsert_job_progress.sql), and, only when a bound was
 * passed, the lines that fall out of it (trim_job_logs.sql). Every write is guarded by (id, attempt,
 * running), so a stale execution writes nothing.
 * <p>
 * In lease mode the executions' reports are written every {@link #FLUSH_INTERVAL} by a thread of
 * their own ({@link #flushPending}), one statement of each kind for all of them, and once more by
 * the job thread when the handler returned, before its outcome is recorded ({@link #flushLast}):
 * after the outcome the guard would refuse them. In transactional mode they are written once, in
 * the job's transaction ({@link #flushInTransaction}). Never throws: a failed write is logged and
 * retried at the next flush; reports never fail a job.
 */
final class ReportWriter {

    private static final Logger log = LoggerFactory.getLogger(ReportWriter.class);

    /** How often the reports of running lease-mode executions are written. */
    static final Duration FLUSH_INTERVAL = Duration.ofSeconds(1);

    /** Columns of insert_job_logs.sql's rows: job id, attempt, line number, line. */
    private static final List<ListType> LINE = List.of(ListType.BIGINT, ListType.INTEGER, ListType.INTEGER, ListType.TEXT);
    /** Columns of upsert_job_progress.sql's rows: job id, attempt, percent, message. */
    private static final List<ListType> PROGRESS = List.of(ListType.BIGINT, ListType.INTEGER, ListType.INTEGER,
            ListType.TEXT);

    private final DataSource dataSource;
    private final SqlStatements sql;

    ReportWriter(DataSource dataSource, SqlStatements sql) {
        this.dataSource = dataSource;
        this.sql = sql;
    }

    /** Periodic, lease mode: writes what these executions reported since their last write. */
    void flushPending(List<ExecutionReports> reports) {
        List<ExecutionReports> due = new ArrayList<>();
        for (ExecutionReports r : reports) {
            if (r.hasPending()) {
                due.add(r);
            }
        }
        if (!due.isEmpty()) {
            flush(due);
        }
    }

    /** Lease mode, on the job thread once the handler returned: writes what is left, then takes no more. */
    void flushLast(ExecutionReports reports) {
        reports.close();
        if (reports.hasPending()) {
            flush(List.of(reports));
        }
    }

    private void flush(List<ExecutionReports> given) {
        try {
            flushLocked(new ArrayList<>(given));
        } catch (RuntimeException | Error e) {
            // A bug of ours: reports must never keep a job from its outcome.
            log.error("writing job reports failed", e);
        }
    }

    private void flushLocked(List<ExecutionReports> due) {
        // Rows in ascending ids, as every batch statement over running jobs; the locks in the same
        // order (only this class takes more than one), so a write never overlaps another of the same
        // execution: the last write, after the handler returned, waits for a periodic one under way.
        due.sort(Comparator.comparingLong((ExecutionReports r) -> r.id).thenComparingInt(r -> r.attempt));
        List<ExecutionReports> locked = new ArrayList<>(due.size());
        try {
            for (ExecutionReports r : due) {
                r.writing.lock();
                locked.add(r);
            }
            List<ExecutionReports.Drained> drained = drainAll(due);
            if (drained.isEmpty()) {
                return;
            }
            try (Connection c = Transactions.autoCommit(dataSource)) {
                write(c, drained);
                drained.forEach(d -> d.owner().written(d));
            } catch (Exception e) {
                drained.forEach(d -> d.owner().restore(d));
                log.warn("writing the progress and log lines of {} job(s) failed, will retry: {}", drained.size(),
                        e.toString());
                ConnectionHints.note(sql.dialect(), e);
            }
        } finally {
            locked.forEach(r -> r.writing.unlock());
        }
    }

    /**
     * Transactional mode: writes the execution's reports on its own transaction {@code tx}, just
     * before its outcome; they commit (or roll back) with it. Under a savepoint, so a failed write
     * loses the reports but not the transaction.
     */
    void flushInTransaction(Connection tx, ExecutionReports reports) {
        reports.close();
        ExecutionReports.Drained d = reports.drain();
        if (d == null) {
            return;
        }
        Savepoint beforeReports = null;
        try {
            beforeReports = tx.setSavepoint();
            write(tx, List.of(d));
            tx.releaseSavepoint(beforeReports);
        } catch (Exception e) {
            log.warn("writing the progress and log lines of job {} attempt {} failed; they are dropped: {}",
                    reports.id, reports.attempt, e.toString());
            if (beforeReports != null) {
                try {
                    tx.rollback(beforeReports);
                } catch (SQLException ignored) {
                    // The transaction is gone; its outcome's write says so.
                }
            }
        }
    }

    private static List<ExecutionReports.Drained> drainAll(List<ExecutionReports> due) {
        List<ExecutionReports.Drained> drained = new ArrayList<>(due.size());
        for (ExecutionReports r : due) {
            ExecutionReports.Drained d = r.drain();
            if (d != null) {
                drained.add(d);
            }
        }
        return drained;
    }

    private void write(Connection c, List<ExecutionReports.Drained> drained) throws SQLException {
        List<Long> lineIds = new ArrayList<>();
        List<Integer> lineAttempts = new ArrayList<>();
        List<Integer> seqs = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<Long> progressIds = new ArrayList<>();
        List<Integer> progressAttempts = new ArrayList<>();
        List<Integer> percents = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        for (ExecutionReports.Drained d : drained) {
            for (ExecutionReports.Line line : d.lines()) {
                lineIds.add(d.owner().id);
                lineAttempts.add(d.owner().attempt);
                seqs.add(line.seq());
                texts.add(line.text());
            }
            if (d.hasProgress()) {
                progressIds.add(d.owner().id);
                progressAttempts.add(d.owner().attempt);
                percents.add(d.percent());
                messages.add(d.message());
            }
        }
        if (!lineIds.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("insert_job_logs"))) {
                Params.of().rows(LINE, List.of(lineIds, lineAttempts, seqs, texts)).bind(ps, 1, sql.dialect());
                ps.executeUpdate();
            }
            trim(c, drained);
        }
        if (!progressIds.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("upsert_job_progress"))) {
                Params.of().rows(PROGRESS, List.of(progressIds, progressAttempts, percents, messages))
                        .bind(ps, 1, sql.dialect());
                ps.executeUpdate();
            }
        }
    }

    /** Deletes the lines past the bounds: only for executions that just passed one, never otherwise. */
    private void trim(Connection c, List<ExecutionReports.Drained> drained) throws SQLException {
        PreparedStatement ps = null;
        try {
            for (ExecutionReports.Drained d : drained) {
                if (d.lines().isEmpty()) {
                    continue;
                }
                int attempt = d.owner().attempt;
                int lastSeq = d.lines().get(d.lines().size() - 1).seq();
                int oldAttempts = d.firstWrite() ? Math.max(0, attempt - Limits.MAX_LOG_ATTEMPTS) : 0;
                int oldLines = Math.max(0, lastSeq - Limits.MAX_LOG_LINES);
                if (oldAttempts == 0 && oldLines == 0) {
                    continue;
                }
                if (ps == null) {
                    ps = c.prepareStatement(sql.get("trim_job_logs"));
                }
                ps.setLong(1, d.owner().id);
                ps.setInt(2, oldAttempts);
                ps.setInt(3, attempt);
                ps.setInt(4, oldLines);
                ps.addBatch();
            }
            if (ps != null) {
                ps.executeBatch();
            }
        } finally {
            if (ps != null) {
                ps.close();
            }
        }
    }
}
