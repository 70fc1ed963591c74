package dev.skipjack.cli;

/** Exit codes scripts can rely on; documented in README.md. */
public final class ExitCode {
    /** Done. */
    public static final int OK = 0;
    /** An operational failure: database unreachable, SQL failed, a demo check failed. */
    public static final int FAILURE = 1;
    /** The command line was wrong (picocli's own usage-error code). */
    public static final int USAGE = 2;
    /** The job or queue named does not exist. */
    public static final int NOT_FOUND = 3;
    /** An action matched no job it could change (e.g. retrying a job that is running). */
    public static final int NOTHING_CHANGED = 4;

    private ExitCode() {
    }
}
