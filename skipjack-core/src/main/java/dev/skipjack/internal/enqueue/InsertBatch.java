package dev.skipjack.internal.enqueue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The validated rows of one enqueue call, with what the steps around the insert need to know of
 * them as a whole (which statements they take, which queues to wake, which concurrency keys to
 * admit), noted as the rows are added. A bulk enqueue is mostly rows of one shape (one kind, one
 * options object): those are added by {@link #addSameShape}, which notes nothing new, so the
 * steps after validation make no pass over the rows. In a fresh JVM each such pass over 20,000
 * rows ran interpreted and together they cost a third of the call's CPU.
 */
public final class InsertBatch {

    private final List<InsertRow> rows;
    /** The last row added by {@link #add}: rows added by {@link #addSameShape} share its shape. */
    private InsertRow shape;
    private boolean oneRowInserts;
    private boolean uniform = true;
    private final Set<String> queues = new HashSet<>(2);
    private final Set<String> queuesDueNow = new HashSet<>(2);
    private Set<String> concurrencyKeys;

    public InsertBatch(int expectedRows) {
        this.rows = new ArrayList<>(expectedRows);
    }

    /** A batch of {@code rows}, each noted. */
    public static InsertBatch of(List<InsertRow> rows) {
        InsertBatch batch = new InsertBatch(rows.size());
        for (InsertRow row : rows) {
            batch.add(row);
        }
        return batch;
    }

    /** Adds a row and notes what it needs. */
    public void add(InsertRow row) {
        if (shape != null && !row.sameShapeAs(shape)) {
            uniform = false;
        }
        shape = row;
        rows.add(row);
        oneRowInserts |= row.needsOneRowInsert();
        uniform &= row.runAtMillis() == null && row.delayMillis() == null;
        queues.add(row.queue());
        if (row.isDueNow(System.currentTimeMillis())) {
            queuesDueNow.add(row.queue());
        }
        if (row.isKeyed()) {
            if (concurrencyKeys == null) {
                concurrencyKeys = new HashSet<>();
            }
            concurrencyKeys.add(row.concurrencyKey());
        }
    }

    /**
     * Adds a row that differs from the last one {@link #add added} only in its args (as
     * {@link InsertRow#withArgs} makes it), and so needs nothing new: not for unique or keyed rows.
     */
    public void addSameShape(InsertRow row) {
        rows.add(row);
    }

    /**
     * Adds {@code chunk}'s rows after these, with what they need: the whole call's view of a bulk
     * enqueue inserted chunk by chunk ({@link ValidatedChunks}), for the steps after its commit.
     */
    public void addAll(InsertBatch chunk) {
        if (chunk.rows.isEmpty()) {
            return;
        }
        if (shape != null && !chunk.rows.get(0).sameShapeAs(shape)) {
            uniform = false;
        }
        uniform &= chunk.uniform;
        shape = chunk.shape;
        rows.addAll(chunk.rows);
        oneRowInserts |= chunk.oneRowInserts;
        queues.addAll(chunk.queues);
        queuesDueNow.addAll(chunk.queuesDueNow);
        if (chunk.concurrencyKeys != null) {
            if (concurrencyKeys == null) {
                concurrencyKeys = new HashSet<>();
            }
            concurrencyKeys.addAll(chunk.concurrencyKeys);
        }
    }

    public List<InsertRow> rows() {
        return rows;
    }

    public int size() {
        return rows.size();
    }

    /** Whether some row needs the one-row insert (insert_one_job.sql). */
    public boolean hasOneRowInserts() {
        return oneRowInserts;
    }

    /** Whether every row has the first one's shape and is due now: insert_jobs_uniform.sql takes them all. */
    public boolean isUniform() {
        return uniform;
    }

    /** The queues of the rows. */
    public Set<String> queues() {
        return queues;
    }

    /**
     * The queues of the rows that were due now when added: those that may have got an available
     * job. Jobs scheduled for later are left out: the promoter wakes the fetchers when they come
     * due. The client clock only decides whether to announce; a wrong guess costs a poll interval
     * of latency, never a job.
     */
    public Set<String> queuesDueNow() {
        return queuesDueNow;
    }

    /** The rows' concurrency keys (F-12, F-13); empty when none has one. */
    public Set<String> concurrencyKeys() {
        return concurrencyKeys == null ? Set.of() : concurrencyKeys;
    }
}
