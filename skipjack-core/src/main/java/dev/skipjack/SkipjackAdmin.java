package dev.skipjack;

import dev.skipjack.internal.cron.CronSchedules;
import dev.skipjack.internal.node.NodeRegistry;
import dev.skipjack.internal.query.JobInfoReader;
import dev.skipjack.internal.schema.Migrator;
import dev.skipjack.internal.query.WorkflowInfoReader;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.Row;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.workflow.WorkflowProgress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import javax.sql.DataSource;

/**
 * What operators do to a running queue (F-25): find jobs, count them, retry, cancel, discard,
 * delete or snooze one job or every job matching a {@link JobQuery}, pause and resume queues on
 * every node; inspect workflows (F-14). Get one from {@link Skipjack#admin()}; a client needs no
 * handlers for this.
 * Thread-safe; every call runs on its own pooled connection.
 */
public final class SkipjackAdmin {

    /** Jobs acted on per statement when acting on a filter, so no statement holds many row locks for long. */
    public static final int BULK_BATCH = 1_000;
    /** Longest snooze accepted. */
    public static final Duration MAX_SNOOZE = Duration.ofDays(3650);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final JobInfoReader reader;
    private final Consumer<Set<String>> wakeLocalFetchers;
    /** Rereads the paused queues of this client's own started node, if any, after a pause or resume. */
    private final Runnable refreshLocalPauses;
    private final WorkflowProgress workflows;

    SkipjackAdmin(DataSource dataSource, SqlStatements sql, JobInfoReader reader, Consumer<Set<String>> wakeLocalFetchers,
                  Runnable refreshLocalPauses, WorkflowProgress workflows) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.reader = reader;
        this.wakeLocalFetchers = wakeLocalFetchers;
        this.refreshLocalPauses = refreshLocalPauses;
        this.workflows = workflows;
    }

    // ---------------------------------------------------------------- find

    /** One page of jobs matching {@code query}, newest first. */
    public JobPage jobs(JobQuery query) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("list_jobs"))) {
            int next = bindFilter(sql.dialect(), ps, query);
            ps.setInt(next, query.limit() + 1);
            List<JobInfo> jobs = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(reader.read(rs));
                }
            }
            Long cursor = null;
            if (jobs.size() > query.limit()) {
                jobs.remove(jobs.size() - 1);
                cursor = jobs.get(jobs.size() - 1).id();
            }
            return new JobPage(jobs, cursor);
        } catch (SQLException e) {
            throw new SkipjackException("listing jobs (" + query + ") failed: " + e.getMessage(), e);
        }
    }

    /** The job with this id, with its args and error history. */
    public Optional<JobInfo> job(long id) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("find_job"))) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(reader.read(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new SkipjackException("reading job " + id + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * What the job's handler reported (issue 12, item 6): its latest progress and its log lines,
     * oldest first (see {@link Job#progress(int, String)} and {@link Job#log(String)}). Lease-mode
     * reports show while the job runs, about a second after they were made; transactional ones once
     * its transaction committed. Empty for a job that reported nothing, or that does not exist
     * (any more).
     */
    public JobLog jobLog(long id) {
        try (Connection c = dataSource.getConnection()) {
            JobLog.Progress progress = null;
            try (PreparedStatement ps = c.prepareStatement(sql.get("find_job_progress"))) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        progress = new JobLog.Progress(rs.getInt(1), rs.getInt(2), rs.getString(3),
                                sql.dialect().getInstant(rs, 4));
                    }
                }
            }
            List<JobLog.Line> lines = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("find_job_logs"))) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        lines.add(new JobLog.Line(rs.getInt(1), rs.getInt(2), sql.dialect().getInstant(rs, 3),
                                rs.getString(4)));
                    }
                }
            }
            return new JobLog(id, progress, lines);
        } catch (SQLException e) {
            throw new SkipjackException("reading the log of job " + id + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The workflow with this id (F-14): its state, how many of its jobs have not ended, and each
     * step with its job and the steps it depends on. Empty once retention deleted it.
     */
    public Optional<WorkflowInfo> workflow(long id) {
        try (Connection c = dataSource.getConnection()) {
            return new WorkflowInfoReader(sql, reader).read(c, id);
        } catch (SQLException e) {
            throw new SkipjackException("reading workflow " + id + " failed: " + e.getMessage(), e);
        }
    }

    /** Binds the eight optional filters of list_jobs.sql / list_job_ids.sql; returns the next parameter index. */
    static int bindFilter(Dialect dialect, PreparedStatement ps, JobQuery q) throws SQLException {
        int i = 1;
        List<Collection<String>> lists = new ArrayList<>();
        lists.add(q.queues().isEmpty() ? null : q.queues());
        lists.add(q.kinds().isEmpty() ? null : q.kinds());
        lists.add(q.states().isEmpty() ? null : q.states().stream().map(JobState::dbValue).toList());
        for (Collection<String> list : lists) {
            dialect.setList(ps, i++, ListType.TEXT, list);
            dialect.setList(ps, i++, ListType.TEXT, list);
        }
        for (Instant t : new Instant[] {q.createdFrom(), q.createdBefore()}) {
            dialect.setInstant(ps, i++, t);
            dialect.setInstant(ps, i++, t);
        }
        ps.setString(i++, q.argsContain());
        ps.setString(i++, q.argsContain());
        ps.setString(i++, q.tag());
        ps.setString(i++, q.tag());
        if (q.after() == null) {
            ps.setNull(i++, Types.BIGINT);
            ps.setNull(i++, Types.BIGINT);
        } else {
            ps.setLong(i++, q.after());
            ps.setLong(i++, q.after());
        }
        return i;
    }

    // ---------------------------------------------------------------- count

    /**
     * Every queue that has jobs, was ever paused or is served by a node running now, by name, with
     * its counts per state and the nodes serving it.
     */
    public List<QueueInfo> queues() {
        Map<String, Instant> pausedAt = new TreeMap<>();
        Map<String, Map<JobState, Long>> counts = new TreeMap<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("list_queues"));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String queue = rs.getString(1);
                pausedAt.put(queue, sql.dialect().getInstant(rs, 2));
                Map<JobState, Long> perState = counts.computeIfAbsent(queue, q -> zeroCounts());
                String state = rs.getString(3);
                if (state != null) {
                    perState.put(JobState.fromDb(state), rs.getLong(4));
                }
            }
        } catch (SQLException e) {
            throw new SkipjackException("listing queues failed: " + e.getMessage(), e);
        }
        Map<String, List<String>> servedBy = new TreeMap<>();
        for (NodeInfo node : nodes()) {
            for (String queue : node.queueNames()) {
                servedBy.computeIfAbsent(queue, q -> new ArrayList<>()).add(node.workerId());
                counts.computeIfAbsent(queue, q -> zeroCounts());
            }
        }
        List<QueueInfo> out = new ArrayList<>();
        counts.forEach((name, perState) -> out.add(new QueueInfo(name, pausedAt.get(name), perState,
                servedBy.getOrDefault(name, List.of()))));
        return out;
    }

    /**
     * Per queue with available jobs, how long its oldest available job has been due, on the
     * database clock: how far behind the queue's workers are (it grows while no node serves the
     * queue, or while its nodes cannot keep up). Queues without available jobs are absent.
     */
    public Map<String, Duration> oldestAvailableAge() {
        Map<String, Duration> ages = new TreeMap<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("oldest_available"));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Instant oldest = sql.dialect().getInstant(rs, 2);
                Instant now = sql.dialect().getInstant(rs, 3);
                Duration age = Duration.between(oldest, now);
                ages.put(rs.getString(1), age.isNegative() ? Duration.ZERO : age);
            }
        } catch (SQLException e) {
            throw new SkipjackException("reading the oldest available jobs failed: " + e.getMessage(), e);
        }
        return ages;
    }

    /**
     * The nodes (started clients) running now, each with the jobs it runs and how long each has
     * been running; a node that died without stopping drops out within half a minute.
     */
    public List<NodeInfo> nodes() {
        try {
            return NodeRegistry.list(dataSource, sql);
        } catch (SQLException e) {
            throw new SkipjackException("listing nodes failed: " + e.getMessage(), e);
        }
    }

    /**
     * Every stored cron schedule (F-11), by name, with its next tick and its last enqueued tick and
     * job; {@link Skipjack#schedule} and {@link Skipjack#unschedule} change them.
     */
    public List<ScheduleInfo> schedules() {
        try {
            return CronSchedules.list(dataSource, sql);
        } catch (SQLException e) {
            throw new SkipjackException("listing cron schedules failed: " + e.getMessage(), e);
        }
    }

    /** Most keys {@link #concurrencyKeys()} lists. */
    public static final int MAX_CONCURRENCY_KEYS_LISTED = 1_000;

    /**
     * The concurrency and sequence keys in use (F-12, F-13), by key: those with a job that has not
     * ended, or a discarded job blocking an ordered key; at most {@link #MAX_CONCURRENCY_KEYS_LISTED}.
     */
    public List<ConcurrencyKeyInfo> concurrencyKeys() {
        List<ConcurrencyKeyInfo> keys = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("list_concurrency_keys"))) {
            ps.setInt(1, MAX_CONCURRENCY_KEYS_LISTED);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long heldBy = rs.getLong(7);
                    Long held = rs.wasNull() ? null : heldBy;
                    long periodMillis = rs.getLong(8);
                    Duration period = rs.wasNull() ? null : Duration.ofMillis(periodMillis);
                    String order = rs.getString(3);
                    keys.add(new ConcurrencyKeyInfo(rs.getString(1), rs.getInt(2), order.startsWith("fifo"),
                            rs.getLong(4), rs.getLong(5), rs.getLong(6), held, period));
                }
            }
        } catch (SQLException e) {
            throw new SkipjackException("listing concurrency keys failed: " + e.getMessage(), e);
        }
        return keys;
    }

    /**
     * The schemas of this database that hold Skipjack's tables (with this client's table prefix),
     * by name; on SQLite {@code main} or none. For saying where the tables are when this client's
     * schema has none: the CLI does so instead of failing with "relation ... does not exist".
     */
    public List<String> schemasWithTables() {
        try {
            return Migrator.schemasWithJobsTable(dataSource, sql);
        } catch (SQLException e) {
            throw new SkipjackException("looking for Skipjack's tables failed: " + e.getMessage(), e);
        }
    }

    /** Job counts per state over all queues; every state is present. */
    public Map<JobState, Long> countByState() {
        Map<JobState, Long> total = zeroCounts();
        for (QueueInfo q : queues()) {
            q.counts().forEach((s, n) -> total.merge(s, n, Long::sum));
        }
        return total;
    }

    /**
     * Jobs finished per bucket over the last {@code window}, oldest first; buckets with nothing
     * finished are present with zeros. At most 1,000 buckets.
     */
    public List<ThroughputBucket> throughput(Duration window, Duration bucket) {
        if (window == null || bucket == null || bucket.getSeconds() < 1 || window.compareTo(bucket) < 0
                || window.dividedBy(bucket) > 1_000) {
            throw new InvalidOptionException("throughput needs a bucket of at least 1 s and a window of 1 to 1000 buckets, got window "
                    + window + " and bucket " + bucket);
        }
        long width = bucket.getSeconds();
        Map<Long, long[]> byStart = new TreeMap<>();
        long nowSec;
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement now = c.prepareStatement(sql.get("database_now"));
                 ResultSet rs = now.executeQuery()) {
                rs.next();
                nowSec = rs.getLong(1);
            }
            long firstStart = Math.floorDiv(nowSec - window.getSeconds(), width) * width + width;
            for (long s = firstStart; s <= nowSec; s += width) {
                byStart.put(s, new long[3]);
            }
            try (PreparedStatement ps = c.prepareStatement(sql.get("throughput"))) {
                ps.setLong(1, width);
                ps.setLong(2, width);
                sql.dialect().setInstant(ps, 3, Instant.ofEpochSecond(firstStart));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long start = sql.dialect().getInstant(rs, 1).getEpochSecond();
                        long[] n = byStart.computeIfAbsent(start, k -> new long[3]);
                        switch (JobState.fromDb(rs.getString(2))) {
                            case COMPLETED -> n[0] += rs.getLong(3);
                            case DISCARDED -> n[1] += rs.getLong(3);
                            case CANCELLED -> n[2] += rs.getLong(3);
                            default -> { }
                        }
                    }
                }
            }
        } catch (SQLException e) {
            throw new SkipjackException("reading throughput failed: " + e.getMessage(), e);
        }
        List<ThroughputBucket> out = new ArrayList<>();
        byStart.forEach((s, n) -> out.add(new ThroughputBucket(Instant.ofEpochSecond(s), n[0], n[1], n[2])));
        return out;
    }

    private static Map<JobState, Long> zeroCounts() {
        Map<JobState, Long> m = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) {
            m.put(s, 0L);
        }
        return m;
    }

    // ---------------------------------------------------------------- act

    /**
     * Applies {@code action} to one job; false when the job does not exist or its state does not
     * allow it. A workflow's job (F-14) can be cancelled or discarded, also while it waits for its
     * parents, and its workflow advances as its policy says; it is never retried nor deleted here
     * (retention deletes it with its finished workflow).
     * <p>
     * Cancel and discard end a job at once, except a running one: that is asked to stop. It stays
     * {@code running}, holding its concurrency slot, its sequence turn and its unique key, with
     * {@link JobInfo#stopRequested()} set; its worker interrupts the handler at its next heartbeat
     * (within a third of the lease) and records the requested state when the handler returns, or
     * {@code completed} if the handler completed the job first. If the worker is gone, the job
     * ends as requested when its lease expires. Until then a retry is refused (the job is
     * running), and nothing else can take its key. A transactional job's row is held by its own
     * transaction while it runs, so it is not asked to stop (docs/state-machine.md).
     */
    public boolean act(JobAction action, long id) {
        return apply(action, null, new long[] {id}) == 1;
    }

    /** Applies {@code action} to every job matching {@code filter} (its limit is ignored); returns how many changed. */
    public long act(JobAction action, JobQuery filter) {
        return act(action, filter, n -> { });
    }

    /** As {@link #act(JobAction, JobQuery)}, telling {@code progress} the running total after each batch. */
    public long act(JobAction action, JobQuery filter, LongConsumer progress) {
        return forEachBatch(filter, ids -> apply(action, null, ids), progress);
    }

    public boolean retry(long id) {
        return act(JobAction.RETRY, id);
    }

    public boolean cancel(long id) {
        return act(JobAction.CANCEL, id);
    }

    public boolean discard(long id) {
        return act(JobAction.DISCARD, id);
    }

    public boolean delete(long id) {
        return act(JobAction.DELETE, id);
    }

    /** Makes a job that is due or will be (scheduled, available, retryable) scheduled to run {@code delay} from now. */
    public boolean snooze(long id, Duration delay) {
        return apply(null, requireSnooze(delay), new long[] {id}) == 1;
    }

    /** Snoozes every scheduled, available or retryable job matching {@code filter}; returns how many changed. */
    public long snooze(JobQuery filter, Duration delay) {
        Duration d = requireSnooze(delay);
        return forEachBatch(filter, ids -> apply(null, d, ids), n -> { });
    }

    private static Duration requireSnooze(Duration delay) {
        if (delay == null || delay.isNegative() || delay.compareTo(MAX_SNOOZE) > 0) {
            throw new InvalidOptionException("snooze must be between 0 and " + MAX_SNOOZE + ", got " + delay);
        }
        return delay;
    }

    private interface Batch {
        int apply(long[] ids);
    }

    /** Walks the ids matching {@code filter} newest first by keyset and applies {@code batch} to each page of them. */
    private long forEachBatch(JobQuery filter, Batch batch, LongConsumer progress) {
        long total = 0;
        Long cursor = filter.after();
        while (true) {
            long[] ids = ids(filter.after(cursor));
            if (ids.length == 0) {
                return total;
            }
            total += batch.apply(ids);
            progress.accept(total);
            if (ids.length < BULK_BATCH) {
                return total;
            }
            cursor = ids[ids.length - 1];
        }
    }

    private long[] ids(JobQuery filter) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("list_job_ids"))) {
            int next = bindFilter(sql.dialect(), ps, filter);
            ps.setInt(next, BULK_BATCH);
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids.stream().mapToLong(Long::longValue).toArray();
        } catch (SQLException e) {
            throw new SkipjackException("selecting jobs (" + filter + ") failed: " + e.getMessage(), e);
        }
    }

    /** One action statement on these ids; {@code snooze} non-null means snooze. Returns rows changed. */
    private int apply(JobAction action, Duration snooze, long[] ids) {
        String statement = snooze != null ? "snooze_jobs" : switch (action) {
            case RETRY -> "retry_jobs";
            case CANCEL -> "cancel_jobs";
            case DISCARD -> "discard_jobs";
            case DELETE -> "delete_jobs";
        };
        Set<String> queues = new HashSet<>();
        Set<String> released = new HashSet<>();
        int changed = 0;
        Params choose = Params.of().list(ListType.BIGINT, java.util.Arrays.stream(ids).boxed().toList());
        Params set = snooze != null ? Params.of().bigint(snooze.toMillis()) : Params.of();
        try (Connection c = Transactions.autoCommit(dataSource)) {
            List<Row> rows;
            if (action == JobAction.CANCEL || action == JobAction.DISCARD) {
                // A workflow's job that ends here advances its workflow in the same transaction.
                String ended = action == JobAction.CANCEL ? "cancelled" : "discarded";
                rows = sql.dialect().inShortTransaction(c, tx -> {
                    List<Row> changedRows = sql.dialect().updateReturning(tx, sql, statement, choose, set);
                    List<WorkflowProgress.Ended> inWorkflows = new ArrayList<>();
                    for (Row r : changedRows) {
                        Long workflowId = r.getLongOrNull(3);
                        // A running job was only asked to stop: its workflow advances when it ends.
                        if (workflowId != null && !"running".equals(r.getString(4))) {
                            inWorkflows.add(new WorkflowProgress.Ended(r.getLong(1), workflowId, ended));
                        }
                    }
                    released.addAll(workflows.advance(tx, inWorkflows));
                    return changedRows;
                });
            } else {
                rows = sql.dialect().updateReturning(c, sql, statement, choose, set);
            }
            for (Row r : rows) {
                changed++;
                queues.add(r.getString(2));
            }
        } catch (SQLException e) {
            throw new SkipjackException(statement.replace('_', ' ') + " failed for " + ids.length + " jobs: " + e.getMessage(), e);
        }
        if (action == JobAction.RETRY && !queues.isEmpty()) {
            wakeLocalFetchers.accept(queues);
        }
        if (!released.isEmpty()) {
            wakeLocalFetchers.accept(released);
        }
        return changed;
    }

    // ---------------------------------------------------------------- pause

    /**
     * Pauses {@code queue} on every node: within about a second no node claims its jobs (this
     * client's own node, when started, from its next claim on); jobs already running finish.
     * Enqueueing still works. Pausing a paused queue changes nothing.
     */
    public void pause(String queue) {
        updateQueue("pause_queue", queue);
    }

    /** Resumes a paused queue on every node; resuming a running queue changes nothing. */
    public void resume(String queue) {
        updateQueue("resume_queue", queue);
    }

    private void updateQueue(String statement, String queue) {
        Limits.requireQueueName(queue);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            ps.setString(1, queue);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new SkipjackException(statement.replace('_', ' ') + " '" + queue + "' failed: " + e.getMessage(), e);
        }
        // The other nodes see it at their next refresh; this one need not wait for its own.
        refreshLocalPauses.run();
        if (statement.equals("resume_queue")) {
            wakeLocalFetchers.accept(Set.of(queue));
        }
    }

    /** Paused queue names and when they were paused. */
    public Map<String, Instant> pausedQueues() {
        Map<String, Instant> out = new LinkedHashMap<>();
        for (QueueInfo q : queues()) {
            if (q.paused()) {
                out.put(q.name(), q.pausedAt());
            }
        }
        return out;
    }
}
