package dev.skipjack.cli.demo.features;

import dev.skipjack.Backend;
import dev.skipjack.Skipjack;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * What a {@link FeatureCheck} works with: the database, the schema, where to print, and this run's
 * token. Each check puts the token into its jobs' args, so it reads back its own jobs and never an
 * earlier run's.
 */
public final class FeatureContext {

    /** How often {@link #await} looks at the database. */
    private static final Duration POLL = Duration.ofMillis(50);

    private final DataSource dataSource;
    private final String schema;
    private final Backend backend;
    private final PrintWriter out;
    private final String runToken;
    private final Duration timeout;

    public FeatureContext(DataSource dataSource, String schema, Backend backend, PrintWriter out, String runToken,
                          Duration timeout) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.backend = backend;
        this.out = out;
        this.runToken = runToken;
        this.timeout = timeout;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public String schema() {
        return schema;
    }

    public Backend backend() {
        return backend;
    }

    public PrintWriter out() {
        return out;
    }

    /** Unique to this run; checks put it in their jobs' args and keys. */
    public String runToken() {
        return runToken;
    }

    /** The longest a check waits for the database to reach a state. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * A client builder on the demo's schema, named {@code node} (its worker id), polling often so
     * that the checks run in seconds. The check adds its queues and handlers.
     */
    public Skipjack.Builder client(String node) {
        return Skipjack.builder(dataSource)
                .schema(schema)
                .workerId("features-" + node + "-" + runToken)
                .pollInterval(Duration.ofMillis(50))
                .promoteInterval(Duration.ofMillis(100))
                .shutdownTimeout(Duration.ofSeconds(5));
    }

    /**
     * Polls {@code condition} (which reads the database) until it holds or {@link #timeout()}
     * passes; returns whether it held.
     */
    public boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(POLL.toMillis());
        }
    }
}
