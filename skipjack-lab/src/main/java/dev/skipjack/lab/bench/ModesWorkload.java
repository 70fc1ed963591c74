package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.TwoPhaseJobHandler;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Issue 15, item 4: BENCHMARK.md's drain of N jobs in each execution mode, interleaved round by
 * round (lease, lease with one insert, transactional, transactional with one insert, two-phase,
 * lease, ...) so a drift of the shared machine lands on every mode alike. The target compares
 * modes with the same handler, so there are two pairs: a handler that only counts (lease,
 * transactional, two-phase) and one that inserts one ledger row per job (lease_insert,
 * transactional_insert). Every mode is reported as a ratio to lease mode's median of the same run,
 * and transactional_insert also to lease_insert's. Default configuration, the bench's concurrency,
 * on a pool of {@link #poolSize} connections.
 * <ul>
 *     <li>{@code lease}: {@code handler}, counts.</li>
 *     <li>{@code lease_insert}: {@code handler} that inserts one ledger row as a lease handler
 *     would: a connection of its own from the workload's DataSource, autocommit, then counts.</li>
 *     <li>{@code transactional}: {@code transactionalHandler} that counts and leaves its connection
 *     alone (the headline: what the mode itself costs).</li>
 *     <li>{@code transactional_insert}: the same plus one ledger row inserted on its connection,
 *     which commits with the job.</li>
 *     <li>{@code two_phase}: {@code twoPhaseHandler} whose prepare and external call do nothing;
 *     skipped, with Skipjack's own reason printed, where the server cannot prepare transactions.</li>
 * </ul>
 * After each drain of an insert mode the ledger is counted: one row per job, or the run fails.
 */
public final class ModesWorkload {

    /** The execution modes drained, in the order of each round. */
    public enum Mode {
        LEASE("lease", false), LEASE_INSERT("lease_insert", true), TRANSACTIONAL("transactional", false),
        TRANSACTIONAL_INSERT("transactional_insert", true), TWO_PHASE("two_phase", false);

        private final String key;
        private final boolean inserts;

        Mode(String key, boolean inserts) {
            this.key = key;
            this.inserts = inserts;
        }

        /** The mode's name in the RESULT line. */
        public String key() {
            return key;
        }

        /** Whether its handler inserts one ledger row per job. */
        boolean inserts() {
            return inserts;
        }
    }

    /**
     * The RESULT line's order after {@code lease_per_s}: lease_insert, added later, comes last so
     * the fields reported before it keep their places.
     */
    private static final List<Mode> REPORTED = List.of(Mode.TRANSACTIONAL, Mode.TRANSACTIONAL_INSERT, Mode.TWO_PHASE,
            Mode.LEASE_INSERT);

    /**
     * What one node of this workload holds at once besides its jobs, as Skipjack's pool-size check
     * counts it: 4 claim statements, 2 completion writers, 1 heartbeat, 2 maintenance, 1 LISTEN.
     */
    static final int NODE_CONNECTIONS = 10;

    /** At most this many jobs in each mode's one unreported warm-up drain. */
    static final int WARM_UP_MAX_JOBS = 10_000;

    private static final JobKind<SkipjackDrain.Args> KIND = JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class);

    private final DataSource dataSource;
    private final String schema;
    private final BenchTable table;
    private final SkipjackDrain drain;

    public ModesWorkload(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.table = new BenchTable(dataSource, Skipjack.builder(dataSource).schema(schema).build());
        this.drain = new SkipjackDrain(dataSource, schema);
    }

    /**
     * The pool this workload needs at {@code concurrency}: one connection per running job (the
     * job's transaction, or lease_insert's own connection), the node's own, and one for the
     * bench's enqueue, polling and ledger. A smaller pool deadlocks nothing (a handler holds one
     * connection and waits on nothing else meanwhile) but makes jobs wait for connections, which
     * would slow the modes that hold one per job and skew their ratios.
     */
    public static int poolSize(int concurrency) {
        return concurrency + NODE_CONNECTIONS + 1;
    }

    /** Drains {@code jobs} jobs {@code runs} times in each mode; returns the RESULT line. */
    public String run(int jobs, int concurrency, int runs, PrintWriter out) throws Exception {
        List<Mode> modes = new ArrayList<>(List.of(Mode.values()));
        String twoPhaseRefused = twoPhaseRefusal(concurrency);
        if (twoPhaseRefused != null) {
            modes.remove(Mode.TWO_PHASE);
            out.println("modes: two-phase skipped: " + twoPhaseRefused);
        }
        createLedger();
        int warmUp = Math.min(jobs, WARM_UP_MAX_JOBS);
        for (Mode mode : modes) {
            drain(mode, warmUp, concurrency);
        }
        Map<Mode, double[]> rates = new EnumMap<>(Mode.class);
        modes.forEach(m -> rates.put(m, new double[runs]));
        for (int r = 0; r < runs; r++) {
            // One line per round, printed whole: the workers' log lines would otherwise split it.
            StringBuilder round = new StringBuilder(String.format(Locale.ROOT, "modes round %d/%d, N=%,d:", r + 1, runs, jobs));
            for (Mode mode : modes) {
                rates.get(mode)[r] = drain(mode, jobs, concurrency);
                round.append(String.format(Locale.ROOT, " %s %,.0f/s", mode.key(), rates.get(mode)[r]));
            }
            out.println(round);
            out.flush();
        }
        double lease = Median.of(rates.get(Mode.LEASE));
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "RESULT workload=modes jobs=%d concurrency=%d runs=%d lease_per_s=%.0f", jobs, concurrency, runs, lease));
        for (Mode mode : REPORTED) {
            double[] measured = rates.get(mode);
            double median = measured == null ? Double.NaN : Median.of(measured);
            line.append(String.format(Locale.ROOT, " %s_per_s=%s ratio_%s_to_lease=%s", mode.key(),
                    measured == null ? "none" : String.format(Locale.ROOT, "%.0f", median), mode.key(),
                    measured == null ? "none" : String.format(Locale.ROOT, "%.2f", median / lease)));
        }
        line.append(String.format(Locale.ROOT, " ratio_transactional_insert_to_lease_insert=%.2f",
                Median.of(rates.get(Mode.TRANSACTIONAL_INSERT)) / Median.of(rates.get(Mode.LEASE_INSERT))));
        return line.toString();
    }

    /** One drain of {@code jobs} jobs in {@code mode}; jobs per second from worker start to the last terminal row. */
    private double drain(Mode mode, int jobs, int concurrency) throws Exception {
        if (mode.inserts()) {
            emptyLedger();
        }
        double rate = drain.run(jobs, handled -> client(mode, concurrency, handled)).processPerSecond();
        if (mode.inserts()) {
            long rows = ledgerRows();
            if (rows != jobs) {
                throw new IllegalStateException("the ledger holds " + rows + " rows after " + jobs + " " + mode.key()
                        + " jobs that each inserted one");
            }
        }
        return rate;
    }

    private Skipjack client(Mode mode, int concurrency, LongAdder handled) {
        Skipjack.Builder b = Skipjack.builder(dataSource).schema(schema).queue(SkipjackDrain.QUEUE, concurrency);
        String insert = table.sql("modes_insert_ledger");
        return switch (mode) {
            case LEASE -> b.handler(KIND, job -> {
                handled.increment();
                return Outcome.complete();
            }).build();
            case LEASE_INSERT -> b.handler(KIND, job -> {
                // As a lease handler writes: its own connection, autocommit, returned at once.
                try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(insert)) {
                    ps.setLong(1, job.id());
                    ps.executeUpdate();
                }
                handled.increment();
                return Outcome.complete();
            }).build();
            case TRANSACTIONAL -> b.transactionalHandler(KIND, (job, tx) -> {
                handled.increment();
                return Outcome.complete();
            }).build();
            case TRANSACTIONAL_INSERT -> b.transactionalHandler(KIND, (job, tx) -> {
                try (PreparedStatement ps = tx.prepareStatement(insert)) {
                    ps.setLong(1, job.id());
                    ps.executeUpdate();
                }
                handled.increment();
                return Outcome.complete();
            }).build();
            case TWO_PHASE -> b.twoPhaseHandler(KIND, new TwoPhaseJobHandler<>() {
                @Override
                public Outcome prepare(dev.skipjack.Job<SkipjackDrain.Args> job, Connection tx) {
                    handled.increment();
                    return Outcome.complete();
                }

                @Override
                public void callExternal(dev.skipjack.Job<SkipjackDrain.Args> job) {
                    // Nothing outside: what the mode's PREPARE and COMMIT PREPARED cost.
                }

                @Override
                public boolean externalEffectHappened(long jobId, int attempt) {
                    return true;
                }
            }).build();
        };
    }

    /**
     * Why Skipjack refuses two-phase kinds here (not PostgreSQL, or {@code max_prepared_transactions}
     * is 0), in its own words; null when a two-phase worker starts.
     */
    private String twoPhaseRefusal(int concurrency) throws SQLException {
        table.empty(); // the probe starts a worker: it must find nothing to run
        try {
            Skipjack probe = client(Mode.TWO_PHASE, concurrency, new LongAdder());
            probe.start();
            probe.stop(Duration.ofSeconds(10));
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    private void createLedger() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(table.sql("modes_create_ledger"));
        }
    }

    private void emptyLedger() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(table.sql("modes_empty_ledger"));
        }
    }

    private long ledgerRows() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(table.sql("modes_count_ledger"))) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
