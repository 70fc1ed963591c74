package dev.skipjack.lab;

import dev.skipjack.cli.CliException;
import dev.skipjack.cli.DatabaseConnection;
import dev.skipjack.cli.DatabaseUrl;
import dev.skipjack.lab.failover.AutoFailoverCluster;
import dev.skipjack.lab.failover.FailoverRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code skipjack-lab failover}: worker JVMs and a producer on a pg_auto_failover cluster the
 * command starts itself (a monitor and two data nodes on local ports), through one multi-host URL
 * with {@code targetServerType=primary}, while the primary fails over: alternately a planned
 * failover ({@code pg_autoctl perform failover}) and a hard stop of the primary (SIGKILL of its
 * pg_autoctl and PostgreSQL). Synchronous replication by default; {@code --async} takes the
 * standbys out of the replication quorum, and the run measures what that loses. Afterwards the
 * audit checker and the run's own record of what was committed judge it, and a RESULT line sums
 * it up. Exits 1 on a violation in sync mode. Details: docs/scaling.md, "Failover of the primary".
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
        description = {"Fails a PostgreSQL primary over under load and checks the audit: nothing lost, no unexplained duplicate.",
                "Starts its own pg_auto_failover cluster (monitor and two nodes on 127.0.0.1, in a temporary directory;",
                "as root, run as the postgres OS user) and removes it at the end, also when interrupted.",
                "Needs the Debian packages pg-auto-failover-cli and postgresql-15-auto-failover.",
                "Faults alternate: pg_autoctl perform failover, then a hard stop (SIGKILL) of the primary."})
public final class FailoverCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--minutes", defaultValue = "3", paramLabel = "N",
            description = "How long to run the load and inject faults, before the drain (default: ${DEFAULT-VALUE}).")
    private double minutes;

    @Option(names = "--async", description = "Asynchronous replication: the standby leaves the replication quorum,"
            + " so commits do not wait for it; the run measures what a hard stop loses.")
    private boolean async;

    @Option(names = "--fault-every", defaultValue = "40", paramLabel = "SECONDS",
            description = "Seconds from one fault's start to the next, at least; the cluster is back to a primary"
                    + " and a secondary before each (default: ${DEFAULT-VALUE}).")
    private int faultEverySeconds;

    @Option(names = "--stall-standby", defaultValue = "0", paramLabel = "SECONDS",
            description = "Before each hard stop, pause the standby's WAL receiver (SIGSTOP) this long, so it lags as"
                    + " over a slow network: in sync mode commits wait for it, in async mode they do not and the hard"
                    + " stop loses them (default: ${DEFAULT-VALUE}).")
    private int standbyStallSeconds;

    @Option(names = "--mode", defaultValue = "lease", paramLabel = "MODE",
            description = "lease or transactional (default: ${DEFAULT-VALUE}).")
    private String mode;

    @Option(names = "--workers", defaultValue = "3", paramLabel = "N", description = "Worker JVMs (default: ${DEFAULT-VALUE}).")
    private int workers;

    @Option(names = "--concurrency", defaultValue = "8", paramLabel = "N", description = "Jobs at once per worker JVM (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--rate", defaultValue = "200", paramLabel = "JOBS_PER_S", description = "Jobs enqueued per second (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--url-parameters", defaultValue = "", paramLabel = "NAME=VALUE[&...]",
            description = "pgjdbc parameters added to the application's URL, e.g. hostRecheckSeconds=2 (default: none).")
    private String urlParameters;

    @Option(names = "--pg-bin", defaultValue = "/usr/lib/postgresql/15/bin", paramLabel = "DIR",
            description = "PostgreSQL's server binaries (default: ${DEFAULT-VALUE}).")
    private Path pgBin;

    @Override
    public Integer call() throws Exception {
        if (!(minutes > 0) || faultEverySeconds < 1 || workers < 2 || concurrency < 1 || rate < 10
                || standbyStallSeconds < 0) {
            throw new CliException("--minutes, --fault-every and --concurrency must be positive, --workers at least 2"
                    + " (one is killed after each failover), --rate at least 10 and --stall-standby not negative");
        }
        if (!mode.equals("lease") && !mode.equals("transactional")) {
            throw new CliException("--mode must be lease or transactional, not '" + mode + "'");
        }
        AutoFailoverCluster.requireUrlParameters(urlParameters);
        AutoFailoverCluster.requireInstalled(pgBin);
        PrintWriter out = spec.commandLine().getOut();
        Path logDir = Files.createTempDirectory("skipjack-failover-logs-");
        out.println("Starting a pg_auto_failover cluster (" + (async ? "asynchronous" : "synchronous")
                + " replication); logs in " + logDir);
        out.flush();
        try (AutoFailoverCluster cluster = AutoFailoverCluster.start(pgBin, async, logDir, out)) {
            cluster.urlParameters(urlParameters);
            return run(cluster, logDir, out);
        }
    }

    private int run(AutoFailoverCluster cluster, Path logDir, PrintWriter out) throws Exception {
        try (DatabaseConnection connection = DatabaseConnection.open(
                Optional.of(new DatabaseUrl(cluster.jdbcUrl(), cluster.user(), null)), 8, out)) {
            FailoverRun run = new FailoverRun(cluster, connection.dataSource(), mode, workers, concurrency, rate,
                    faultEverySeconds, standbyStallSeconds, logDir.resolve("workers"), out);
            return run.run(minutes);
        }
    }
}
