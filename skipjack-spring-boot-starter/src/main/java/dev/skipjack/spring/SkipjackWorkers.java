package dev.skipjack.spring;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.Skipjack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.util.List;
import java.util.Objects;

/**
 * Runs the client's workers for as long as the application context runs: {@link #start()}
 * ({@link Skipjack#start()}) once the context is refreshed, after every other bean is ready, and
 * {@link #stop()} ({@link Skipjack#close()}: stop claiming, let running jobs finish within the
 * shutdown timeout, hand the rest back at once) when the context closes, before other beans are
 * destroyed. In the last phase, so workers start after and stop before the lifecycle beans their
 * handlers may use (a web server, message producers).
 *
 * <p>When {@code skipjack.worker-enabled=false} it never starts the workers: the application only
 * enqueues. So it is too when the client has no queue (neither {@code skipjack.queues} nor a
 * customizer gave one) and no handler bean; handler beans without a queue would never run, and
 * stop the application instead.
 */
public class SkipjackWorkers implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SkipjackWorkers.class);

    private final Skipjack skipjack;
    private final boolean workerEnabled;
    private final List<String> handlerBeans;
    private volatile boolean withoutQueue;
    private volatile boolean running;

    /**
     * Workers of {@code skipjack}.
     *
     * @param skipjack      the client
     * @param workerEnabled whether this application runs jobs at all; false for a producer-only one
     * @param handlerBeans  the handler beans registered on the client, each as {@code 'bean' (kind
     *                      'name')}, to name them if no queue would run them
     */
    public SkipjackWorkers(Skipjack skipjack, boolean workerEnabled, List<String> handlerBeans) {
        this.skipjack = Objects.requireNonNull(skipjack, "skipjack");
        this.workerEnabled = workerEnabled;
        this.handlerBeans = List.copyOf(handlerBeans);
    }

    /**
     * Whether this application runs jobs: false when {@code skipjack.worker-enabled=false}, or once
     * {@link #start()} found no queue (and no handler bean); then it only enqueues.
     *
     * @return whether the workers are meant to run here
     */
    public boolean isEnabled() {
        return workerEnabled && !withoutQueue;
    }

    /**
     * Starts the workers, unless this application only enqueues.
     *
     * @throws InvalidConfigurationException (option {@code queue}) naming the handler beans, when
     *                                       there are some and the client has no queue
     */
    @Override
    public synchronized void start() {
        if (!workerEnabled) {
            log.info("Skipjack workers not started: skipjack.worker-enabled=false, this application only enqueues (worker {})",
                    skipjack.workerId());
            return;
        }
        if (running || withoutQueue) {
            return;
        }
        try {
            skipjack.start();
        } catch (InvalidConfigurationException e) {
            // The core refuses to start a client without a queue; whether that is a mistake depends on the handlers.
            if (!"queue".equals(e.option())) {
                throw e;
            }
            if (!handlerBeans.isEmpty()) {
                throw new InvalidConfigurationException("queue", "handler beans " + handlerBeans
                        + " would never run: no queue is configured. Set skipjack.queues.<name>=<concurrency>,"
                        + " e.g. skipjack.queues.default=8, or skipjack.worker-enabled=false for an application that only enqueues");
            }
            withoutQueue = true;
            log.info("Skipjack workers not started: no queue configured (skipjack.queues), this application only enqueues"
                    + " (worker {})", skipjack.workerId());
            return;
        }
        running = true;
        log.info("Skipjack workers started (worker {})", skipjack.workerId());
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
