package dev.skipjack.lab.failover;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the failover run knows was committed, kept outside the database so that it still knows
 * after a failover that lost transactions: the enqueues the producer was told committed, and the
 * jobs the primary showed as completed just before each fault. After the run every one of them
 * must still be there: an acknowledged job present, a completed job still completed in the same
 * attempt (a later attempt means its completion was lost and it ran again).
 *
 * <p>Jobs are known by their argument {@code n} (the producer's numbering), not their id: a
 * promoted standby can hand out again the ids of inserts it never received. A batch whose
 * {@code enqueueAll} failed is not acknowledged: it may or may not have committed, and either is
 * fine, as nobody was told it did.
 */
public final class CommitLedger {

    /** A job as a read found it: its number, state and attempt. */
    public record JobRow(int n, String state, int attempt) {
    }

    /**
     * What did not survive.
     *
     * @param lostEnqueues    acknowledged jobs with no row after the run
     * @param lostCompletions jobs completed before a fault that are no longer completed in that attempt
     * @param examples        up to 10 of each, for the log
     */
    public record Losses(long lostEnqueues, long lostCompletions, List<String> examples) {

        public long total() {
            return lostEnqueues + lostCompletions;
        }
    }

    private final BitSet acknowledged = new BitSet();
    private long acknowledgedCount;
    /** n of a job seen completed before a fault, and the attempt that completed it. */
    private final Map<Integer, Integer> completed = new HashMap<>();

    /** The jobs {@code from} (inclusive) to {@code to} (exclusive) were acknowledged. */
    public synchronized void acknowledge(int from, int to) {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("jobs " + from + " to " + to);
        }
        acknowledged.set(from, to);
        acknowledgedCount += to - from;
    }

    /** How many jobs were acknowledged. */
    public synchronized long acknowledgedCount() {
        return acknowledgedCount;
    }

    /** A read of the primary just before a fault: its completed jobs are committed. */
    public synchronized void completedBeforeFault(List<JobRow> rows) {
        for (JobRow r : rows) {
            if (r.state().equals("completed")) {
                completed.put(r.n(), r.attempt());
            }
        }
    }

    /** How many jobs were seen completed before a fault. */
    public synchronized int completedCount() {
        return completed.size();
    }

    /** Compares what was committed with the jobs after the run. */
    public synchronized Losses check(List<JobRow> after) {
        Map<Integer, JobRow> byN = new HashMap<>();
        BitSet present = new BitSet();
        for (JobRow r : after) {
            byN.put(r.n(), r);
            present.set(r.n());
        }
        List<String> examples = new ArrayList<>();
        BitSet lost = (BitSet) acknowledged.clone();
        lost.andNot(present);
        lost.stream().limit(10).forEach(n -> examples.add("enqueue of job n=" + n + " lost"));
        long lostCompletions = 0;
        for (Map.Entry<Integer, Integer> e : completed.entrySet()) {
            JobRow now = byN.get(e.getKey());
            if (now == null && acknowledged.get(e.getKey())) {
                continue; // counted once, as a lost enqueue
            }
            if (now == null || !now.state().equals("completed") || now.attempt() != e.getValue()) {
                lostCompletions++;
                if (lostCompletions <= 10) {
                    examples.add("completion of job n=" + e.getKey() + " attempt " + e.getValue() + " lost (now "
                            + (now == null ? "gone" : now.state() + ", attempt " + now.attempt()) + ")");
                }
            }
        }
        return new Losses(lost.cardinality(), lostCompletions, List.copyOf(examples));
    }
}
