package dev.skipjack;

/**
 * Where the progress and log lines a handler reports through {@link Job#progress(int, String)} and
 * {@link Job#log(String)} go. Skipjack's workers give each execution one that records them for
 * operators ({@link SkipjackAdmin#jobLog(long)}); a {@link Job} built by hand (a handler's unit test)
 * gets {@link #discarding()} unless the test passes its own, e.g. one that collects the lines.
 * <p>
 * {@link Job} validates before calling a reporter, so an implementation only ever sees a percent in
 * 0-100 and texts within the {@link Limits}. Implementations must be thread-safe (a handler may
 * report from threads of its own) and must not block on the database.
 */
public interface JobReporter {

    /** The latest progress of the execution: {@code percent} in 0-100, {@code message} optional (null). */
    void progress(int percent, String message);

    /** Appends one line to the execution's log. */
    void log(String line);

    /** A reporter that drops everything: the default of a {@link Job} built without one. */
    static JobReporter discarding() {
        return DiscardingReporter.INSTANCE;
    }
}
