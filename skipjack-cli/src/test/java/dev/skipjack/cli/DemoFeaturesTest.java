package dev.skipjack.cli;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobInfo;
import dev.skipjack.JobQuery;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.cli.demo.features.CronCheck;
import dev.skipjack.cli.demo.features.FeatureContext;
import dev.skipjack.cli.demo.features.LimitsCheck;
import dev.skipjack.cli.demo.features.OrderedCheck;
import dev.skipjack.cli.demo.features.UniqueJobsCheck;
import dev.skipjack.cli.demo.features.WorkflowCheck;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skipjack demo --features} as a user runs it, in process: on the embedded PostgreSQL (or
 * the database SKIPJACK_DATABASE_URL names), on a new SQLite file and twice on one MariaDB
 * database (the embedded one of the core tests, or SKIPJACK_TEST_MARIADB_URL); and runs in which the
 * database holds wrong data each check must catch: a tick enqueued twice or missing (cron), three jobs
 * of one customer running at once (limits), a step started before the previous one of its key
 * finished (ordered).
 */
class DemoFeaturesTest {

    private static final String ALL_OK = "RESULT workload=features unique=ok cron=ok limits=ok ordered=ok workflows=ok";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(CommandLine commandLine, String... args) {
        return CliInProcess.execute(commandLine, out, err, List.of(args));
    }

    /** What the demo printed, in the test's log: the figures each check read back. */
    @AfterEach
    void printOutput() {
        System.out.print(out);
    }

    private String lastLine() {
        String[] lines = out.toString().strip().split("\\R");
        return lines[lines.length - 1];
    }

    @Test
    void everyFeatureCheckPassesOnTheEmbeddedPostgres() {
        int exitCode = execute(SkipjackCli.newCommandLine(), "demo", "--features");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("[ok]     unique: 16 threads enqueued key")
                .contains("[ok]     cron: 3 nodes ran a schedule every second")
                .containsPattern("\\[ok\\]     limits: 3 nodes ran 36 jobs limited to 2 at once per customer: 36 completed;"
                        + " most running at once per customer, from the stored attempt and finish times:"
                        + " acme [12], globex [12], initech [12] \\(never over the limit, and the whole limit used\\)")
                .contains("[ok]     ordered: 4 sequence keys of 8 jobs, enqueued interleaved")
                .contains("32 completed; from the stored attempt and finish times, per key: 0 started out of enqueue order,"
                        + " 0 started before the previous one finished")
                .contains("[ok]     workflows: split -> 8 parts -> merge, workflow completed")
                .doesNotContain("[FAILED]");
        assertThat(lastLine()).isEqualTo(ALL_OK);
    }

    @Test
    void everyFeatureCheckPassesOnSqlite() {
        int exitCode = execute(SkipjackCli.newCommandLine(), "demo", "--features", "--backend", "sqlite");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isZero();
        assertThat(out.toString()).contains("using a new SQLite database").doesNotContain("[FAILED]");
        assertThat(lastLine()).isEqualTo(ALL_OK);
    }

    /**
     * A second run on the same database starts from what the first left: MariaDB's TRUNCATE
     * restarts the job ids, so the first run's workflow edges must go with its jobs.
     */
    @Test
    void everyFeatureCheckPassesTwiceInOneMariaDbDatabase() {
        String url = TestBackend.MARIADB.jdbcUrl();
        String schema = "cli_features_" + ProcessHandle.current().pid();
        for (int run = 1; run <= 2; run++) {
            out.getBuffer().setLength(0);
            int exitCode = execute(SkipjackCli.newCommandLine(), "demo", "--features", "--url", url, "--schema", schema);

            assertThat(exitCode).as("run %d, exit code; output:%n%s%n%s", run, out, err).isZero();
            assertThat(lastLine()).as("run %d", run).isEqualTo(ALL_OK);
        }
        assertThat(out.toString()).contains("jobs and 1 workflows of an earlier run");
    }

    @Test
    void aTickEnqueuedTwiceInTheDatabaseFailsTheCronCheckAndTheExitCode() {
        DemoCommand demo = new DemoCommand(() -> List.of(new UniqueJobsCheck(), new TickEnqueuedTwice(), new WorkflowCheck()));

        int exitCode = execute(new CommandLine(demo), "--features", "--backend", "sqlite");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isEqualTo(ExitCode.FAILURE);
        assertThat(out.toString())
                .containsPattern("\\[FAILED\\] cron: .* enqueued twice: \\S+ x2;")
                .contains("[ok]     unique:")
                .contains("[ok]     workflows:");
        assertThat(lastLine()).isEqualTo("RESULT workload=features unique=ok cron=fail workflows=ok");
    }

    @Test
    void threeJobsOfOneCustomerRunningAtOnceInTheDatabaseFailTheLimitsCheck() {
        DemoCommand demo = new DemoCommand(() -> List.of(new CustomerRanThreeAtOnce()));

        int exitCode = execute(new CommandLine(demo), "--features", "--backend", "sqlite");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isEqualTo(ExitCode.FAILURE);
        assertThat(out.toString()).containsPattern("\\[FAILED\\] limits: .* acme 3, globex [12], initech [12] \\(limit EXCEEDED\\)");
        assertThat(lastLine()).isEqualTo("RESULT workload=features limits=fail");
    }

    @Test
    void aStepStartedBeforeThePreviousOneFinishedInTheDatabaseFailsTheOrderedCheck() {
        DemoCommand demo = new DemoCommand(() -> List.of(new StepsRanTogether()));

        int exitCode = execute(new CommandLine(demo), "--features", "--backend", "sqlite");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isEqualTo(ExitCode.FAILURE);
        assertThat(out.toString()).containsPattern(
                "\\[FAILED\\] ordered: .* 1 started out of enqueue order, 1 started before the previous one finished;");
        assertThat(lastLine()).isEqualTo("RESULT workload=features ordered=fail");
    }

    /** Runs {@code sql} on the check's database. */
    private static void execute(FeatureContext context, String sql, Object... params) throws Exception {
        try (Connection c = context.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            assertThat(ps.executeUpdate()).as("rows changed by %s", sql).isPositive();
        }
    }

    /**
     * The real limits check, after the stored times say a third job of customer acme ran alongside
     * two others: the second job's interval stretched over the first's and the third's, as a node
     * that ignored the limit would have left it.
     */
    private static final class CustomerRanThreeAtOnce extends LimitsCheck {
        @Override
        protected void beforeVerifying(Skipjack client, FeatureContext context) throws Exception {
            List<Long> acme = client.admin().jobs(JobQuery.all().kind(SYNC.name()).argsContain("{\"customer\": \"acme\"}")
                    .limit(JobQuery.MAX_LIMIT)).jobs().stream().map(JobInfo::id).sorted().toList();
            // Jobs 1 and 2 of acme ran side by side; job 3 is moved to start while both ran.
            String jobs = client.jobsTable();
            execute(context, "UPDATE " + jobs + " SET attempted_at = (SELECT max(attempted_at) FROM " + jobs
                    + " WHERE id IN (?, ?)), finished_at = (SELECT max(finished_at) FROM " + jobs + " WHERE id IN (?, ?))"
                    + " WHERE id = ?", acme.get(0), acme.get(1), acme.get(0), acme.get(1), acme.get(2));
            execute(context, "UPDATE " + jobs + " SET attempted_at = (SELECT min(attempted_at) FROM " + jobs
                    + " WHERE id IN (?, ?)), finished_at = (SELECT max(finished_at) FROM " + jobs + " WHERE id IN (?, ?))"
                    + " WHERE id IN (?, ?)", acme.get(0), acme.get(1), acme.get(0), acme.get(1), acme.get(0), acme.get(1));
        }
    }

    /**
     * The real ordered check, after the stored times say the third step of one key started before
     * the second finished: its interval is the second's, as two nodes running the key at once would leave.
     */
    private static final class StepsRanTogether extends OrderedCheck {
        @Override
        protected void beforeVerifying(Skipjack client, FeatureContext context) throws Exception {
            List<JobInfo> steps = client.admin().jobs(JobQuery.all().kind(STEP.name()).limit(JobQuery.MAX_LIMIT)).jobs();
            String key = "\"" + OrderedCheck.keyOf(1) + "\"";
            List<Long> ofKey = steps.stream().filter(j -> j.argsJson().contains(key)).map(JobInfo::id).sorted().toList();
            String jobs = client.jobsTable();
            execute(context, "UPDATE " + jobs + " SET attempted_at = (SELECT attempted_at FROM " + jobs + " WHERE id = ?),"
                    + " finished_at = (SELECT finished_at FROM " + jobs + " WHERE id = ?) WHERE id = ?",
                    ofKey.get(1), ofKey.get(1), ofKey.get(2));
        }
    }

    @Test
    void aTickMissingFromTheDatabaseFailsTheCronCheck() {
        DemoCommand demo = new DemoCommand(() -> List.of(new TickDeleted()));

        int exitCode = execute(new CommandLine(demo), "--features", "--backend", "sqlite");

        assertThat(exitCode).as("exit code; output:%n%s%n%s", out, err).isEqualTo(ExitCode.FAILURE);
        assertThat(out.toString()).containsPattern("\\[FAILED\\] cron: .* enqueued twice: none; missing between the first and last: 1");
        assertThat(lastLine()).isEqualTo("RESULT workload=features cron=fail");
    }

    /** The real cron check, after the job of a tick between the first and the last was deleted. */
    private static final class TickDeleted extends CronCheck {
        @Override
        protected void beforeVerifying(Skipjack client, FeatureContext context, List<JobInfo> ticks) {
            List<JobInfo> byTick = ticks.stream().sorted(java.util.Comparator.comparing(JobInfo::runAt)).toList();
            assertThat(client.admin().delete(byTick.get(1).id())).isTrue();
        }
    }

    /**
     * The real cron check, with one wrong row put into the database before it judges: a second job
     * for a tick the nodes enqueued, as a node that missed the other's claim of the tick would make.
     */
    private static final class TickEnqueuedTwice extends CronCheck {
        @Override
        protected void beforeVerifying(Skipjack client, FeatureContext context, List<JobInfo> ticks) {
            JobInfo tick = ticks.get(ticks.size() / 2);
            client.enqueue(JobRequest.of(TICK, new Tick(context.runToken()),
                    EnqueueOptions.defaults().withQueue(tick.queue()).withRunAt(tick.runAt())));
        }
    }
}
