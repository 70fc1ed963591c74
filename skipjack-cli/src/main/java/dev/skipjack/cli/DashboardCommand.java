package dev.skipjack.cli;

import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.demo.DemoBank;
import dev.skipjack.cli.demo.DemoJobsTable;
import dev.skipjack.cli.demo.DemoWorkload;
import dev.skipjack.dashboard.SkipjackDashboard;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code skipjack dashboard}: serves the web dashboard on a database. Without a URL it starts an
 * embedded PostgreSQL and runs the demo workload in the background, so there is something to see.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = {"Serves the web dashboard (http://127.0.0.1:7070/ by default) until stopped.",
                "Without --url or SKIPJACK_DATABASE_URL: starts an embedded PostgreSQL and runs the demo workload",
                "in the background (a trickle of emails, resizes, card charges and transfers, some failing).",
                "Authentication: none on 127.0.0.1; on any other --host, basic auth with --user and",
                "$SKIPJACK_DASHBOARD_PASSWORD, or a generated password printed at start.",
                "With --shard [NAME=]URL (repeatable, needs --url): serves every shard as one (counts summed with a",
                "per-shard breakdown, jobs shown and acted on as SHARD:ID)."})
public final class DashboardCommand implements java.util.concurrent.Callable<Integer> {

    private static final String DEMO_SCHEMA = "skipjack_demo";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;
    @Mixin
    private DatabaseOptions database;
    @Mixin
    private ShardOptions shards;
    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    private String host;
    @Option(names = "--port", defaultValue = "7070", description = "Port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    private int port;
    @Option(names = "--user", description = "Basic-auth user; the password comes from $SKIPJACK_DASHBOARD_PASSWORD.")
    private String user;
    @Option(names = "--read-only", description = "Show everything, change nothing.")
    private boolean readOnly;
    @Option(names = "--demo-rate", defaultValue = "50", paramLabel = "JOBS_PER_SECOND",
            description = "Demo mode: jobs enqueued per second (default: ${DEFAULT-VALUE}).")
    private int demoRate;
    @Option(names = "--stop-after", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Stop after this long (for scripts and tests).")
    private Duration stopAfter;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (demoRate < 1 || demoRate > 10_000) {
            throw new CommandLine.ParameterException(cl, "--demo-rate must be 1-10000");
        }
        String password = System.getenv("SKIPJACK_DASHBOARD_PASSWORD");
        if (user != null && (password == null || password.length() < 8)) {
            throw new CommandLine.ParameterException(cl, "--user needs SKIPJACK_DASHBOARD_PASSWORD set to at least 8 characters");
        }
        PrintWriter out = cl.getOut();
        boolean demo = database.url().isEmpty();
        if (!demo) {
            try (ShardedConnection db = ShardedConnection.open(cl, database, shards)) {
                serve(SkipjackDashboard.builder(db.admin()), out, () -> { });
                return ExitCode.OK;
            }
        }
        shards.refuse(cl, "the demo runs on one embedded database; give --url and --shard for a sharded dashboard");
        try (DatabaseConnection connection = DatabaseConnection.open(database.url(), 24, out)) {
            String schema = database.schemaOr(DEMO_SCHEMA);
            Skipjack.Builder builder = Skipjack.builder(connection.dataSource()).schema(schema);
            DemoBank bank = new DemoBank(connection.dataSource(), schema, connection.url().backend());
            builder.queue(DemoWorkload.DEFAULT_QUEUE, 8).queue(DemoWorkload.CRITICAL_QUEUE, 4)
                    .promoteInterval(Duration.ofMillis(200));
            DemoWorkload.registerHandlers(builder, bank);
            Skipjack skipjack = builder.build();
            skipjack.migrate();
            new DemoJobsTable(connection.dataSource(), schema, skipjack.jobsTable()).emptyForNewRun(DemoWorkload.KINDS);
            bank.openAccounts();
            skipjack.start();
            ScheduledExecutorService feeder = startFeeding(skipjack);
            out.printf("Demo workload running on the embedded database: %d jobs/s into queues default and critical%n", demoRate);
            serve(SkipjackDashboard.builder(skipjack.admin()), out, () -> {
                feeder.shutdownNow();
                skipjack.close();
            });
        }
        return ExitCode.OK;
    }

    /** Serves until stopped (Ctrl-C, --stop-after), then runs {@code stopped}. */
    private void serve(SkipjackDashboard.Builder dashboardBuilder, PrintWriter out, Runnable stopped) {
        dashboardBuilder.host(host).port(port).readOnly(readOnly);
        if (user != null) {
            dashboardBuilder.basicAuth(user, System.getenv("SKIPJACK_DASHBOARD_PASSWORD"));
        }
        try (StopSignal stop = new StopSignal("skipjack-dashboard-stop");
             SkipjackDashboard dashboard = dashboardBuilder.build().start()) {
            out.println("Dashboard: " + dashboard.url() + (readOnly ? " (read-only)" : ""));
            if (dashboard.generatedPassword() != null) {
                out.println("Log in as " + SkipjackDashboard.GENERATED_USER + " with password " + dashboard.generatedPassword()
                        + " (set --user and SKIPJACK_DASHBOARD_PASSWORD to choose your own)");
            } else if (!dashboard.authenticationRequired()) {
                out.println("No authentication: listening on loopback only.");
            }
            out.println("Ctrl-C to stop.");
            out.flush();
            try {
                stop.await(stopAfter);
            } catch (InterruptedException e) {
                // Stop like Ctrl-C. The flag stays clear so the graceful shutdown below can wait.
            }
        } finally {
            stopped.run();
        }
    }

    /** Enqueues a slice of the demo plan every second, so the overview always has fresh work and failures. */
    private ScheduledExecutorService startFeeding(Skipjack skipjack) {
        List<JobRequest> plan = DemoWorkload.plan(10_000);
        ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "skipjack-demo-feeder");
            t.setDaemon(true);
            return t;
        });
        int[] next = {0};
        feeder.scheduleAtFixedRate(() -> {
            try {
                int from = next[0] % plan.size();
                int to = Math.min(plan.size(), from + demoRate);
                skipjack.enqueueAll(plan.subList(from, to));
                next[0] = to;
            } catch (RuntimeException e) {
                // The dashboard stays up if the demo cannot enqueue (e.g. while stopping).
            }
        }, 0, 1, TimeUnit.SECONDS);
        return feeder;
    }
}
