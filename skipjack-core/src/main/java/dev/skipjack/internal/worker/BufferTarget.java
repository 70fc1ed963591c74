package dev.skipjack.internal.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many claimed jobs a queue's local buffer should hold: about the jobs this process finishes
 * in {@link #BUFFER_WINDOW}, since each finished job frees the slot a buffered one fills. Short
 * jobs get claimed a batch ahead (one round trip for many jobs); long jobs are not hoarded away
 * from other workers. Counting starts instead would buffer a whole slot's worth at start-up, when
 * idle slots fill at once, and hold those jobs behind long handlers (ClockSkewTest and
 * FaultInjectionTest saw it). Guarded by its dispatcher's lock, except {@link #jobFinished}.
 */
final class BufferTarget {

    /** The local buffer holds about the jobs this process finishes in this long, at most one round's worth. */
    static final Duration BUFFER_WINDOW = Duration.ofMillis(50);
    /**
     * How often the finish rate is measured. Short, so that a worker starting on a backlog grows
     * its claims within a few round trips instead of claiming one slot's worth at a time for the
     * first tenth of a second.
     */
    private static final long RATE_SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * How much the target grows when the last claim's jobs all finished before the next round:
     * four times, so a worker starting on a backlog of short jobs reaches full rounds in three
     * round trips (eight slots: 8, 32, 128, 400 jobs) instead of five.
     */
    private static final int STARVED_GROWTH = 4;

    private final int maxJobs;
    private final LongAdder finishedJobs = new LongAdder();
    private int target;
    private long sampledAt = System.nanoTime();
    private long sampledCount;

    /** @param maxJobs the most one claim round takes, and so the most worth buffering */
    BufferTarget(int maxJobs) {
        this.maxJobs = maxJobs;
    }

    /** Called by job threads, without the lock. */
    void jobFinished() {
        finishedJobs.increment();
    }

    int jobs() {
        return target;
    }

    /**
     * @param lastFullClaim the size of the last claim round when it got every job it asked for, else 0
     * @param starved       true when the buffer is empty and every slot free
     */
    void update(int lastFullClaim, boolean starved) {
        if (lastFullClaim > 0 && starved) {
            // Every job of the last claim finished before the dispatcher came back, and the queue
            // had more: the job threads are starved. Grow at once rather than wait for the next
            // rate sample (a worker starting on a backlog would claim one slot's worth per round
            // for the first sample). Long jobs never get here: their slots are busy.
            target = Math.min(maxJobs, Math.max(target, lastFullClaim) * STARVED_GROWTH);
        }
        long now = System.nanoTime();
        long elapsed = now - sampledAt;
        if (elapsed < RATE_SAMPLE_NANOS) {
            return;
        }
        long count = finishedJobs.sum();
        double perNano = (double) (count - sampledCount) / elapsed;
        // Up to one full round of claims. A short sample can fall between two rounds and see
        // nothing finish, so the target only halves per sample: it follows a rise at once and a
        // real fall within a few samples.
        int sampled = (int) Math.min(maxJobs, Math.ceil(perNano * BUFFER_WINDOW.toNanos()));
        target = Math.max(sampled, target / 2);
        sampledAt = now;
        sampledCount = count;
    }
}
