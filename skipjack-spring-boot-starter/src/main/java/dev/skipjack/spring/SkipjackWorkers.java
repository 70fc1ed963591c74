package dev.skipjack.spring;

import dev.skipjack.Skipjack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.util.Objects;

/**
 * Runs the client's workers for as long as the application context runs: {@link #start()}
 * ({@link Skipjack#start()}) once the context is refreshed, after every other bean is ready, and
 * {@link #stop()} ({@link Skipjack#close()}: stop claiming, let running jobs finish within the
 * shutdown timeout, hand the rest back at once) when the context closes, before other beans are
 * destroyed. In the last phase, so workers start after and stop before the lifecycle beans their
 * handlers may use (a web server, message producers).
 *
 * <p>When {@code skipjack.worker-enabled=false}, or no queue is configured, it never starts the
 * workers: the application only enqueues.
 */
public class SkipjackWorkers implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SkipjackWorkers.class);

    private final Skipjack skipjack;
    private final boolean enabled;
    private volatile boolean running;

    /**
     * Workers of {@code skipjack}.
     *
     * @param skipjack the client
     * @param enabled  whether this application runs jobs at all; false for a producer-only one
     */
    public SkipjackWorkers(Skipjack skipjack, boolean enabled) {
        this.skipjack = Objects.requireNonNull(skipjack, "skipjack");
        this.enabled = enabled;
    }

    /** Whether this application runs jobs (false: producer only, {@link #start()} does nothing). */
    public boolean isEnabled() {
        return enabled;
    }

    @Override
    public synchronized void start() {
        if (!enabled) {
            log.info("Skipjack workers not started: this application only enqueues (worker {})", skipjack.workerId());
            return;
        }
        if (!running) {
            skipjack.start();
            running = true;
            log.info("Skipjack workers started (worker {})", skipjack.workerId());
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            try {
                skipjack.close();
            } finally {
                running = false;
            }
            log.info("Skipjack workers stopped (worker {})", skipjack.workerId());
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The last phase: started after, and stopped before, the other lifecycle beans. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }
}
