package dev.skipjack;

/**
 * A queue this client works: its name, how many jobs of it run at once in this process, and how
 * many jobs one claim takes at most. Immutable:
 * {@code QueueOptions.of("bulk", 16).withMaxBatch(20)}.
 *
 * <p>Part of a client's configuration: bad values are refused with
 * {@link InvalidConfigurationException}, whose option is {@code queue(name)},
 * {@code queue(concurrency)} or {@code queue(maxBatch)}.
 *
 * @param name        a valid queue name (see {@link Limits#QUEUE_NAME})
 * @param concurrency jobs of this queue running at once in this process, 1 to 10,000
 * @param maxBatch    most jobs one claim takes, 1 to 1,000
 */
public record QueueOptions(String name, int concurrency, int maxBatch) {

    /**
     * Default claim batch: claims take at most this many jobs, never more than the free slots.
     * 200, not 100: a fresh worker drained 20,000 no-op jobs at 0.62-0.66 of the raw ceiling
     * instead of 0.49-0.58, and 200,000 at 0.88 instead of 0.75 (docs/benchmarks.md).
     */
    public static final int DEFAULT_MAX_BATCH = 200;

    /** @throws InvalidConfigurationException when a value is out of its range */
    public QueueOptions {
        Limits.requireQueueName(name, "queue(name)");
        if (concurrency < 1 || concurrency > 10_000) {
            throw new InvalidConfigurationException("queue(concurrency)",
                    "concurrency of queue '" + name + "' must be between 1 and 10000, got " + concurrency);
        }
        if (maxBatch < 1 || maxBatch > 1_000) {
            throw new InvalidConfigurationException("queue(maxBatch)",
                    "maxBatch of queue '" + name + "' must be between 1 and 1000, got " + maxBatch);
        }
    }

    /**
     * Queue {@code name} with {@code concurrency} jobs at once and claims of at most
     * {@link #DEFAULT_MAX_BATCH}.
     *
     * @throws InvalidConfigurationException when a value is out of its range
     */
    public static QueueOptions of(String name, int concurrency) {
        return new QueueOptions(name, concurrency, DEFAULT_MAX_BATCH);
    }

    /**
     * This queue with claims of at most {@code maxBatch} jobs (1 to 1,000; never more than the free
     * slots anyway).
     *
     * @throws InvalidConfigurationException (option {@code queue(maxBatch)}) when out of that range
     */
    public QueueOptions withMaxBatch(int maxBatch) {
        return new QueueOptions(name, concurrency, maxBatch);
    }
}
