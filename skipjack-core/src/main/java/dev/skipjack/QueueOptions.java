package dev.skipjack;

/**
 * A queue this client works: its name and how many jobs of it run at once in this process.
 *
 * @param name        a valid queue name (see {@link Limits#QUEUE_NAME})
 * @param concurrency jobs of this queue running at once in this process, 1 to 10,000
 * @param maxBatch    most jobs one claim takes, 1 to 1,000
 */
public record QueueOptions(String name, int concurrency, int maxBatch) {

    /** Default claim batch: claims take at most this many jobs, never more than the free slots. */
    public static final int DEFAULT_MAX_BATCH = 100;

    public QueueOptions {
        Limits.requireQueueName(name);
        if (concurrency < 1 || concurrency > 10_000) {
            throw new InvalidOptionException("concurrency of queue '" + name + "' must be between 1 and 10000, got " + concurrency);
        }
        if (maxBatch < 1 || maxBatch > 1_000) {
            throw new InvalidOptionException("maxBatch of queue '" + name + "' must be between 1 and 1000, got " + maxBatch);
        }
    }

    public static QueueOptions of(String name, int concurrency) {
        return new QueueOptions(name, concurrency, DEFAULT_MAX_BATCH);
    }
}
