package dev.skipjack.internal.observe;

import dev.skipjack.SkipjackListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * Passes each event to every registered {@link SkipjackListener}, catching what a listener
 * throws: a listener's bug must never stop a worker loop or fail an enqueue. The first failure of
 * each listener is logged as a warning with its stack, later ones at debug level, so a listener
 * failing on every job does not flood the log. Callers on the job path check {@link #active()}
 * first, so a client without listeners computes and allocates nothing for them.
 */
public final class ListenerFanOut {

    private static final Logger log = LoggerFactory.getLogger(ListenerFanOut.class);

    /** No listener: {@link #active()} is false. */
    public static final ListenerFanOut NONE = new ListenerFanOut(List.of());

    private final SkipjackListener[] listeners;
    private final PluginFailures failures;

    private ListenerFanOut(List<SkipjackListener> listeners) {
        this.listeners = listeners.toArray(new SkipjackListener[0]);
        this.failures = new PluginFailures(log, "listener", this.listeners);
    }

    /** The fan-out to these listeners, in order; {@link #NONE} for none. */
    public static ListenerFanOut of(List<SkipjackListener> listeners) {
        return listeners.isEmpty() ? NONE : new ListenerFanOut(List.copyOf(listeners));
    }

    /** Whether any listener is registered. */
    public boolean active() {
        return listeners.length > 0;
    }

    public void jobsEnqueued(String queue, String kind, int count) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].jobsEnqueued(queue, kind, count);
            } catch (Throwable t) {
                failed(i, "jobsEnqueued", t);
            }
        }
    }

    public void jobsClaimed(String queue, int count) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].jobsClaimed(queue, count);
            } catch (Throwable t) {
                failed(i, "jobsClaimed", t);
            }
        }
    }

    public void jobStarted(String queue, String kind, int attempt, Duration queueWait) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].jobStarted(queue, kind, attempt, queueWait);
            } catch (Throwable t) {
                failed(i, "jobStarted", t);
            }
        }
    }

    public void jobFinished(String queue, String kind, int attempt, SkipjackListener.JobResult result,
                            Duration executionTime) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].jobFinished(queue, kind, attempt, result, executionTime);
            } catch (Throwable t) {
                failed(i, "jobFinished", t);
            }
        }
    }

    public void leasesRescued(int count) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].leasesRescued(count);
            } catch (Throwable t) {
                failed(i, "leasesRescued", t);
            }
        }
    }

    private void failed(int index, String event, Throwable t) {
        failures.failed(index, event, t);
    }
}
