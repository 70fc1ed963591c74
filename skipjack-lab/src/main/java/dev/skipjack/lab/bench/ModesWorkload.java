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
 * Issue 15, item 4: BENCHMARK.md's drain of N no-op jobs in each execution mode, with the same
 * trivial handler, interleaved round by round (lease, transactional, transactional with one insert,
 * two-phase, lease, ...) so a drift of the shared machine lands on every mode alike. Every mode is
 * reported as a ratio to lease mode's median of the same run. Default configuration, the bench's
 * concurrency.
 * <ul>
 *     <li>{@code lease}: {@code handler}, counts.</li>
 *     <li>{@code transactional}: {@code transactionalHandler} that counts and leaves its connection
 *     alone (the headline: what the mode itself costs).</li>
 *     <li>{@code transactional_insert}: the same plus one row inserted on its connection, which
 *     commits with the job (the ledger is counted afterwards: one row per job or the run fails).</li>
 *     <li>{@code two_phase}: {@code twoPhaseHandler} whose prepare and external call do nothing;
 *     skipped, with Skipjack's own reason printed, where the server cannot prepare transactions.</li>
 * </ul>
 */
public final class ModesWorkload {

    /** The execution modes drained, in the order of each round. */
    public enum Mode {
        LEASE("lease"), TRANSACTIONAL("transactional"), TRANSACTIONAL_INSERT("transactional_insert"),
        TWO_PHASE("two_phase");

        private final String key;

        Mode(String key) {
            this.key = key;
        }

        /** The mode's name in the RESULT line. */
        public String key() {
            return key;
        }
    }

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
        for (Mode mode : Mode.values()) {
            if (mode == Mode.LEASE) {
                continue;
            }
            double[] measured = rates.get(mode);
            double median = measured == null ? Double.NaN : Median.of(measured);
            line.append(String.format(Locale.ROOT, " %s_per_s=%s ratio_%s_to_lease=%s", mode.key(),
                    measured == null ? "none" : String.format(Locale.ROOT, "%.0f", median), mode.key(),
                    measured == null ? "none" : String.format(Locale.ROOT, "%.2f", median / lease)));
        }
        return line.toString();
    }

    /** One drain of {@code jobs} jobs in {@code mode}; jobs per second from worker start to the last terminal row. */
    private double drain(Mode mode, int jobs, int concurrency) throws Exception {
        if (mode == Mode.TRANSACTIONAL_INSERT) {
            emptyLedger();
        }
        double rate = drain.run(jobs, handled -> client(mode, concurrency, handled)).processPerSecond();
        if (mode == Mode.TRANSACTIONAL_INSERT && ledgerRows() != jobs) {
            throw new IllegalStateException("the ledger holds " + ledgerRows() + " rows after " + jobs
                    + " transactional jobs that each inserted one");
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
