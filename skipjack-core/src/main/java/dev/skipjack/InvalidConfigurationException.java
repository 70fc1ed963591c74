package dev.skipjack;

import java.util.Objects;

/**
 * A client, queue or kind was configured with a value Skipjack cannot work with: a lease shorter
 * than a second, a duplicate kind, a queue with no slots, a client started with no queue. Thrown
 * where the configuration is made (the {@link Skipjack.Builder} method, {@link JobKind#of},
 * {@link QueueOptions}, {@link KindOptions}, {@link RetryPolicy} factories) or, for what only the
 * whole configuration shows, by {@link Skipjack#start()}. {@link #option()} and the message name
 * the offending option.
 *
 * <p>A {@link SkipjackException}, like everything Skipjack throws on purpose, so one
 * {@code catch (SkipjackException e)} still covers the library; not an {@link InvalidJobException},
 * because no job is involved: that branch is for input refused at enqueue, which a caller may
 * handle job by job, whereas a configuration error is fixed once, in code or settings. Not an
 * {@link IllegalArgumentException} either: some of these errors (no queue at {@code start()}) are
 * about the configuration as a whole, not one argument.
 */
public class InvalidConfigurationException extends SkipjackException {

    private final String option;

    /**
     * @param option  the offending option as the API names it, e.g. {@code lease},
     *                {@code queue(concurrency)}, {@code retention(DISCARDED)}, {@code kind}
     * @param message what is wrong with it; should name the option too
     */
    public InvalidConfigurationException(String option, String message) {
        super(message);
        this.option = Objects.requireNonNull(option, "option");
    }

    /** The offending option as the API names it, e.g. {@code lease} or {@code queue(concurrency)}. */
    public String option() {
        return option;
    }
}
