package dev.skipjack.internal.enqueue;

import dev.skipjack.EnqueueResult;
import dev.skipjack.internal.notify.InsertNotifications;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.StatementText;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Inserts jobs with one multi-row statement per batch, on whatever connection it is given. Without
 * {@code INSERT ... RETURNING} (MySQL) each job is one insert of a JDBC batch, whose generated keys
 * are the ids: a multi-row insert's keys are only the first id plus a guess. A unique job (F-10) is
 * one statement that a unique index may refuse, then a lookup of the job holding its key; a job
 * with tags or metadata is one statement too (the multi-row inserts do not carry them).
 */
public final class JobInserter {

    /** Rows per statement: large enough to amortise the round trip, small enough for the driver's limits. */
    public static final int ROWS_PER_STATEMENT = 5_000;
    /**
     * Characters of args one statement carries at most (a single row's own may exceed it): 5,000
     * rows of large args made one statement over MySQL's and MariaDB's max_allowed_packet, which
     * refused every such enqueue ({@link StatementText}).
     */
    static final int MAX_STATEMENT_ARGS_CHARS = StatementText.MAX_CHARS;
    /** Tries of one unique insert whose key's holder keeps finishing before it can be read. */
    static final int UNIQUE_ATTEMPTS = 10;
    /** Columns of insert_jobs.sql's rows: queue, kind, args, priority, max attempts, run_at, delay. */
    private static final List<ListType> INSERT_COLUMNS = List.of(ListType.TEXT, ListType.TEXT, ListType.TEXT,
            ListType.SMALLINT, ListType.INTEGER, ListType.BIGINT, ListType.BIGINT);

    private final SqlStatements sql;
    /** Channel to NOTIFY after inserting (F-16), or null when notifications are off. */
    private final String notifyChannel;

    public JobInserter(SqlStatements sql) {
        this(sql, null);
    }

    public JobInserter(SqlStatements sql, String notifyChannel) {
        this.sql = sql;
        this.notifyChannel = notifyChannel;
    }

    /**
     * Inserts the rows and returns, in request order, each one's id, or for a unique row whose key
     * a job already holds (F-10), that job's id marked duplicate. Two rows of one request with the
     * same key give one job: the second is a duplicate of the first.
     */
    public List<EnqueueResult> insert(Connection c, List<InsertRow> rows) throws SQLException {
        return insert(c, InsertBatch.of(rows));
    }

    /** As {@link #insert(Connection, List)}, for a batch that knows what its rows need. */
    public List<EnqueueResult> insert(Connection c, InsertBatch batch) throws SQLException {
        return insert(c, batch, true);
    }

    /**
     * As {@link #insert(Connection, InsertBatch)}, announcing nothing: one chunk of a call that
     * inserts several ({@link ValidatedChunks}) and announces them all once, after the last, with
     * {@link #notifyInserted}, so that a transaction sends one notification, as one insert does.
     */
    public List<EnqueueResult> insertChunk(Connection c, InsertBatch chunk) throws SQLException {
        return insert(c, chunk, false);
    }

    private List<EnqueueResult> insert(Connection c, InsertBatch batch, boolean notify) throws SQLException {
        List<InsertRow> rows = batch.rows();
        if (notify && notifiesInTheInsert(batch)) {
            long[] ids = new long[rows.size()];
            insertUniform(c, rows, ids, 0, InsertNotifications.payload(batch.queuesDueNow()));
            return new InsertedJobs(ids);
        }
        if (!batch.hasOneRowInserts()) {
            List<EnqueueResult> results = new InsertedJobs(insertPlain(c, rows, batch.isUniform()));
            if (notify) {
                notifyInserted(c, batch);
            }
            return results;
        }
        EnqueueResult[] results = new EnqueueResult[rows.size()];
        List<InsertRow> plain = new ArrayList<>();
        List<Integer> plainAt = new ArrayList<>();
        Map<String, Long> keysOfThisRequest = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            InsertRow row = rows.get(i);
            if (!row.needsOneRowInsert()) {
                plain.add(row);
                plainAt.add(i);
                continue;
            }
            if (!row.isUnique()) {
                results[i] = insertOne(c, row);
                continue;
            }
            Long earlier = keysOfThisRequest.get(row.uniqueKey());
            if (earlier != null) {
                results[i] = new EnqueueResult(earlier, true);
                continue;
            }
            results[i] = insertOne(c, row);
            keysOfThisRequest.put(row.uniqueKey(), results[i].id());
        }
        if (!plain.isEmpty()) {
            long[] ids = insertPlain(c, plain, false);
            for (int j = 0; j < ids.length; j++) {
                results[plainAt.get(j)] = new EnqueueResult(ids[j], false);
            }
        }
        if (notify) {
            notifyInserted(c, batch);
        }
        return List.of(results);
    }

    /**
     * Whether {@link #insert(Connection, InsertBatch)} writes {@code batch} with one statement, its
     * notification included: a single job without a unique key, tags, metadata or a concurrency
     * key (those take insert_one_job.sql) that either notifies in its insert (due now, no
     * {@code runAt} or delay given) or notifies nobody (notifications off, or due later). Such an
     * enqueue needs no transaction of its own; in auto-commit the statement is one.
     */
    public boolean isOneStatement(InsertBatch batch) {
        return batch.rows().size() == 1 && !batch.hasOneRowInserts() && !notifiesSeparately(batch);
    }

    /**
     * Whether {@code batch}'s notification is a statement after its inserts (notify_jobs_inserted.sql):
     * then an enqueue in auto-commit needs a transaction around both, or a failed notification
     * would leave committed jobs behind an error.
     */
    public boolean notifiesSeparately(InsertBatch batch) {
        return notifyChannel != null && !batch.queuesDueNow().isEmpty() && !notifiesInTheInsert(batch);
    }

    /** Rows that insert_jobs_uniform_notify.sql takes in one statement with their notification. */
    private boolean notifiesInTheInsert(InsertBatch batch) {
        return notifyChannel != null && batch.isUniform() && !batch.hasOneRowInserts()
                && statementEnd(batch.rows(), 0) == batch.rows().size() && !batch.queuesDueNow().isEmpty();
    }

    /**
     * One row by insert_one_job.sql: inserted, or for a unique row the job holding its key. The
     * holder can finish between the refused insert and the lookup (the key is free again): then
     * the insert is tried again.
     */
    private EnqueueResult insertOne(Connection c, InsertRow r) throws SQLException {
        Params params = Params.of().text(r.queue()).text(r.kind()).text(r.argsJson()).integer(r.priority())
                .integer(r.maxAttempts()).text(r.uniqueKey()).bool(r.uniqueIncludesCompleted())
                .bigintOrNull(r.runAtMillis()).bigintOrNull(r.delayMillis()).text(r.tagsJson()).text(r.metadataJson())
                .text(r.concurrencyKey()).bigintOrNull(r.concurrencyMax() == null ? null : r.concurrencyMax().longValue())
                .text(r.concurrencyOrder()).bigintOrNull(r.concurrencyPeriodMillis());
        for (int attempt = 1; attempt <= UNIQUE_ATTEMPTS; attempt++) {
            Long id = sql.dialect().insertUnlessDuplicate(c, sql, "insert_one_job", params);
            if (id != null) {
                return new EnqueueResult(id, false);
            }
            if (!r.isUnique()) {
                throw new SQLException("insert_one_job.sql inserted no row for a job without a unique key");
            }
            try (PreparedStatement ps = c.prepareStatement(sql.get("find_unique_job"))) {
                ps.setString(1, r.uniqueKey());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return new EnqueueResult(rs.getLong(1), true);
                    }
                }
            }
        }
        throw new SQLException("unique key '" + r.uniqueKey() + "' was held at insert and free at lookup "
                + UNIQUE_ATTEMPTS + " times in a row; this transaction may not see the job holding it"
                + " (an isolation level above READ COMMITTED?)");
    }

    /**
     * Inserts rows without unique keys in order and returns their ids in the same order.
     * {@code uniform}: the rows are known to share one shape and be due now (else each chunk is
     * looked at).
     */
    private long[] insertPlain(Connection c, List<InsertRow> rows, boolean uniform) throws SQLException {
        long[] ids = new long[rows.size()];
        if (!sql.dialect().supports(Capability.INSERT_RETURNING)) {
            insertEach(c, rows, ids);
            return ids;
        }
        for (int from = 0, to; from < rows.size(); from = to) {
            to = statementEnd(rows, from);
            List<InsertRow> chunk = rows.subList(from, to);
            if (uniform || isUniform(chunk)) {
                insertUniform(c, chunk, ids, from, null);
                continue;
            }
            try (PreparedStatement ps = c.prepareStatement(sql.get("insert_jobs"))) {
                Params.of()
                        .rows(INSERT_COLUMNS, List.of(
                                chunk.stream().map(InsertRow::queue).toList(),
                                chunk.stream().map(InsertRow::kind).toList(),
                                argsOf(chunk),
                                chunk.stream().map(InsertRow::priority).toList(),
                                chunk.stream().map(InsertRow::maxAttempts).toList(),
                                chunk.stream().map(InsertRow::runAtMillis).toList(),
                                chunk.stream().map(InsertRow::delayMillis).toList()))
                        .bind(ps, 1, sql.dialect());
                addReturnedIds(c, ps, ids, from, chunk.size());
            }
        }
        return ids;
    }

    /**
     * The end (exclusive) of the statement that starts at row {@code from}: {@link #ROWS_PER_STATEMENT}
     * rows, or fewer when their args pass {@link #MAX_STATEMENT_ARGS_CHARS}; at least one row.
     */
    static int statementEnd(List<InsertRow> rows, int from) {
        return StatementText.end(rows, from, ROWS_PER_STATEMENT, MAX_STATEMENT_ARGS_CHARS, r -> r.argsJson().length());
    }

    /** Announces the jobs of {@code batch} due now to the listeners of their queues (F-16), when notifications are on. */
    public void notifyInserted(Connection c, InsertBatch batch) throws SQLException {
        if (notifyChannel != null) {
            InsertNotifications.send(c, sql, notifyChannel, batch.queuesDueNow());
        }
    }

    /** One insert_job.sql per row in JDBC batches; each batched insert reports its own key. */
    private void insertEach(Connection c, List<InsertRow> rows, long[] ids) throws SQLException {
        int at = 0;
        for (int from = 0, to; from < rows.size(); from = to) {
            to = statementEnd(rows, from);
            List<InsertRow> chunk = rows.subList(from, to);
            try (PreparedStatement ps = c.prepareStatement(sql.get("insert_job"), Statement.RETURN_GENERATED_KEYS)) {
                for (InsertRow r : chunk) {
                    Params.of().text(r.queue()).text(r.kind()).text(r.argsJson()).integer(r.priority())
                            .integer(r.maxAttempts()).bigintOrNull(r.runAtMillis()).bigintOrNull(r.delayMillis())
                            .bind(ps, 1, sql.dialect());
                    ps.addBatch();
                }
                ps.executeBatch();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    while (keys.next()) {
                        ids[at++] = keys.getLong(1);
                    }
                }
            }
        }
        if (at != ids.length) {
            throw new SQLException("the batched inserts reported " + at + " keys for " + ids.length + " jobs");
        }
    }

    /**
     * Stores {@code contextJson} (a JobInterceptor's context) with the jobs {@code ids}, just
     * inserted on {@code c}: one statement, in the insert's transaction, so no worker claims one of
     * them without it (unless {@code c} is in auto-commit mode, docs/tracing.md).
     */
    public void storeContext(Connection c, String contextJson, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("set_trace_context"))) {
            Params.of().text(contextJson).list(ListType.BIGINT, ids).bind(ps, 1, sql.dialect());
            ps.executeUpdate();
        }
    }

    /**
     * Runs an insert statement of {@code count} rows and puts the ids it returns, in request order,
     * into {@code ids} from {@code at}. The statements insert in request order, so ids ascend in it
     * on every backend. Where the insert can sit in a {@code WITH} (PostgreSQL) the statement
     * returns one row: the first id, the count, and the sorted ids only when they are not
     * consecutive. On MariaDB it returns a row per job, sorted here. On SQLite, where one insert's
     * ids are consecutive, it returns none: see {@link #addConsecutiveIds}.
     */
    private void addReturnedIds(Connection c, PreparedStatement ps, long[] ids, int at, int count) throws SQLException {
        if (sql.dialect().supports(Capability.CONSECUTIVE_INSERT_IDS)) {
            addConsecutiveIds(c, ps, ids, at, count);
            return;
        }
        int returned = 0;
        try (ResultSet rs = ps.executeQuery()) {
            if (sql.dialect().supports(Capability.INSERT_IN_WITH)) {
                returned = rs.next() ? addAggregatedIds(rs, ids, at) : 0;
            } else {
                while (rs.next()) {
                    if (returned < count) {
                        ids[at + returned] = rs.getLong(1);
                    }
                    returned++;
                }
                Arrays.sort(ids, at, at + Math.min(returned, count));
            }
        }
        if (returned != count) {
            throw new SQLException("the insert returned " + returned + " ids for " + count + " jobs");
        }
    }

    /**
     * Runs {@code ps}, an insert of {@code count} rows without RETURNING whose ids are consecutive
     * ({@link Capability#CONSECUTIVE_INSERT_IDS}), and puts them into {@code ids} from {@code at}:
     * the last is the connection's last inserted id.
     */
    private void addConsecutiveIds(Connection c, PreparedStatement ps, long[] ids, int at, int count) throws SQLException {
        int inserted = ps.executeUpdate();
        if (inserted != count) {
            throw new SQLException("the insert inserted " + inserted + " rows for " + count + " jobs");
        }
        long last;
        try (PreparedStatement lastId = c.prepareStatement(sql.get("last_insert_id"));
             ResultSet rs = lastId.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("last_insert_id.sql returned no row");
            }
            last = rs.getLong(1);
        }
        for (int i = 0; i < count; i++) {
            ids[at + i] = last - count + 1 + i;
        }
    }

    /** Puts the ids of an aggregated row (first id, count, the ids unless consecutive) into {@code ids} from {@code at}; returns the count. */
    private static int addAggregatedIds(ResultSet rs, long[] ids, int at) throws SQLException {
        long first = rs.getLong(1);
        int count = rs.getInt(2);
        java.sql.Array scattered = rs.getArray(3);
        if (scattered == null) {
            for (int i = 0; i < count && at + i < ids.length; i++) {
                ids[at + i] = first + i;
            }
            return count;
        }
        Object[] listed = (Object[]) scattered.getArray();
        for (int i = 0; i < listed.length && at + i < ids.length; i++) {
            ids[at + i] = ((Number) listed[i]).longValue();
        }
        return listed.length;
    }

    /** Rows that differ only in their args and are due now: insert_jobs_uniform.sql can take them. */
    private static boolean isUniform(List<InsertRow> chunk) {
        InsertRow first = chunk.get(0);
        for (InsertRow r : chunk) {
            if (!r.sameShapeAs(first)) {
                return false;
            }
        }
        return first.runAtMillis() == null && first.delayMillis() == null;
    }

    /** The chunk's args texts, in order. */
    private static List<String> argsOf(List<InsertRow> chunk) {
        String[] args = new String[chunk.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = chunk.get(i).argsJson();
        }
        return Arrays.asList(args);
    }

    /**
     * insert_jobs_uniform.sql, or with a notification {@code payload} insert_jobs_uniform_notify.sql,
     * which notifies in the same statement.
     */
    private void insertUniform(Connection c, List<InsertRow> chunk, long[] ids, int at, String payload) throws SQLException {
        InsertRow first = chunk.get(0);
        try (PreparedStatement ps = c.prepareStatement(sql.get(payload == null ? "insert_jobs_uniform" : "insert_jobs_uniform_notify"))) {
            ps.setString(1, first.queue());
            ps.setString(2, first.kind());
            ps.setInt(3, first.priority());
            ps.setInt(4, first.maxAttempts());
            sql.dialect().setList(ps, 5, ListType.TEXT, argsOf(chunk));
            if (payload != null) {
                ps.setString(6, notifyChannel);
                ps.setString(7, payload);
            }
            addReturnedIds(c, ps, ids, at, chunk.size());
        }
    }
}
