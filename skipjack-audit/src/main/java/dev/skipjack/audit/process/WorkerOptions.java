package dev.skipjack.audit.process;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The settings of one {@link AuditedWorker} JVM, and the one place its command line is written
 * ({@link #toArgs}) and read ({@link #parse}). Every setting is a {@code --name=value} argument;
 * the database password is never one of them (see {@link AuditedWorker#PASSWORD_ENV}).
 *
 * <p>The defaults are the fault tests' worker; the lab's chaos command overrides what it runs
 * differently (Skipjack's default lease and intervals, a random pause, its own kind and
 * connection name).
 */
public final class WorkerOptions {

    // Read directly by AuditedWorker and WorkerProcesses; set through the methods below or parse().
    String jdbcUrl;
    String user;
    String schema;
    String mode = "lease";
    String workerId;
    int concurrency = 4;
    int batch = 10;
    long leaseMillis = 15_000;
    int pauseMinMillis;
    int pauseMaxMillis;
    long rescueMillis = 500;
    long shutdownMillis = 2_000;
    String kind = "audit";
    String applicationName = "skipjack-worker";
    String crashPoint = "none";
    boolean probeKeys;

    private WorkerOptions() {
    }

    /**
     * A worker on {@code schema} of the database at {@code jdbcUrl}.
     *
     * @param mode lease, transactional, naive (the hand-rolled claimer the harness must catch) or
     *             two-phase (the two-phase kind {@code pay})
     */
    public static WorkerOptions of(String jdbcUrl, String schema, String mode, String workerId) {
        WorkerOptions o = new WorkerOptions();
        o.jdbcUrl = Objects.requireNonNull(jdbcUrl);
        o.schema = Objects.requireNonNull(schema);
        o.mode = Objects.requireNonNull(mode);
        o.workerId = Objects.requireNonNull(workerId);
        return o;
    }

    /** The database user, when the URL does not carry it (null: none). */
    public WorkerOptions user(String user) {
        this.user = user;
        return this;
    }

    /** Jobs at once (the default queue's concurrency); the pool has 6 connections more. */
    public WorkerOptions concurrency(int concurrency) {
        this.concurrency = concurrency;
        return this;
    }

    /** Jobs claimed per fetch. */
    public WorkerOptions batch(int batch) {
        this.batch = batch;
        return this;
    }

    /** The lease; 0 keeps Skipjack's default. */
    public WorkerOptions leaseMillis(long leaseMillis) {
        this.leaseMillis = leaseMillis;
        return this;
    }

    /** How long each audited execution takes before it writes its audit row. */
    public WorkerOptions pauseMillis(int millis) {
        return pauseMillis(millis, millis);
    }

    /** A random pause in [min, max) per execution (max equal to min: exactly min). */
    public WorkerOptions pauseMillis(int min, int max) {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("pause " + min + "-" + max);
        }
        this.pauseMinMillis = min;
        this.pauseMaxMillis = max;
        return this;
    }

    /** Rescue interval, with a 50 ms poll; 0 keeps Skipjack's default poll and rescue intervals. */
    public WorkerOptions rescueMillis(long rescueMillis) {
        this.rescueMillis = rescueMillis;
        return this;
    }

    /** How long a graceful stop (SIGTERM) waits for running jobs. */
    public WorkerOptions shutdownMillis(long shutdownMillis) {
        this.shutdownMillis = shutdownMillis;
        return this;
    }

    /** The audited kind; {@code <kind>-poison} always throws. */
    public WorkerOptions kind(String kind) {
        this.kind = kind;
        return this;
    }

    /**
     * The connections' ApplicationName is this prefix, a space and the schema, so a driver can
     * find (and terminate) exactly this run's worker connections in pg_stat_activity.
     */
    public WorkerOptions applicationName(String prefix) {
        this.applicationName = prefix;
        return this;
    }

    /** Two-phase mode: none, before-prepare, after-prepare or after-external (where the JVM halts). */
    public WorkerOptions crashPoint(String crashPoint) {
        this.crashPoint = crashPoint;
        return this;
    }

    /**
     * Lease mode: each execution also records, while its handler runs, how many executions of its
     * job's concurrency key are running at that moment ({@code AuditTables.enterKey}), for
     * concurrency-limit tests across processes. The audit's key tables must exist.
     */
    public WorkerOptions probeKeys() {
        this.probeKeys = true;
        return this;
    }

    /** The full ApplicationName of this worker's connections: prefix, space, schema. */
    String fullApplicationName() {
        return applicationName + " " + schema;
    }

    /** The worker's command-line arguments. */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>(List.of("--url=" + jdbcUrl, "--schema=" + schema, "--mode=" + mode,
                "--worker=" + workerId, "--concurrency=" + concurrency, "--batch=" + batch,
                "--lease-ms=" + leaseMillis, "--pause-ms=" + pauseMinMillis + "-" + pauseMaxMillis,
                "--rescue-ms=" + rescueMillis, "--shutdown-ms=" + shutdownMillis, "--kind=" + kind,
                "--application-name=" + applicationName, "--crash-point=" + crashPoint));
        if (user != null) {
            args.add("--user=" + user);
        }
        if (probeKeys) {
            args.add("--probe-keys=true");
        }
        return args;
    }

    /** Reads what {@link #toArgs} wrote; an unknown or malformed argument is an error, not ignored. */
    public static WorkerOptions parse(String[] argv) {
        WorkerOptions o = new WorkerOptions();
        for (String arg : argv) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, not '" + arg + "'");
            }
            String value = arg.substring(eq + 1);
            switch (arg.substring(2, eq)) {
                case "url" -> o.jdbcUrl = value;
                case "user" -> o.user = value;
                case "schema" -> o.schema = value;
                case "mode" -> o.mode = value;
                case "worker" -> o.workerId = value;
                case "concurrency" -> o.concurrency = Integer.parseInt(value);
                case "batch" -> o.batch = Integer.parseInt(value);
                case "lease-ms" -> o.leaseMillis = Long.parseLong(value);
                case "pause-ms" -> {
                    String[] range = value.split("-", 2);
                    o.pauseMillis(Integer.parseInt(range[0]), Integer.parseInt(range[range.length - 1]));
                }
                case "rescue-ms" -> o.rescueMillis = Long.parseLong(value);
                case "shutdown-ms" -> o.shutdownMillis = Long.parseLong(value);
                case "kind" -> o.kind = value;
                case "application-name" -> o.applicationName = value;
                case "crash-point" -> o.crashPoint = value;
                case "probe-keys" -> o.probeKeys = Boolean.parseBoolean(value);
                default -> throw new IllegalArgumentException("unknown worker argument '" + arg + "'");
            }
        }
        if (o.jdbcUrl == null || o.schema == null || o.workerId == null) {
            throw new IllegalArgumentException("--url, --schema and --worker are required");
        }
        return o;
    }
}
