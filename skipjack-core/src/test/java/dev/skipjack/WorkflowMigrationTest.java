package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.skipjack.Workflow.dependsOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-20 for V009 (workflows): a schema at the previous release (V001-V007) with jobs in every state
 * upgrades in place. Every job keeps its id, state and content; ids keep growing from where they
 * were (on SQLite, whose jobs table V009 rebuilds, also past jobs deleted before the upgrade); and
 * plain jobs and workflows run on the upgraded schema.
 */
class WorkflowMigrationTest extends EveryBackendTest {

    record Args(int n) {
    }

    static final JobKind<Args> WORK = JobKind.of("upgraded", Args.class);

    /** The migrations of the release before workflows, as Migrator lists them. */
    private static final Map<Integer, String> BEFORE_WORKFLOWS = new java.util.LinkedHashMap<>(Map.of());

    static {
        BEFORE_WORKFLOWS.put(1, "jobs");
        BEFORE_WORKFLOWS.put(3, "queues");
        BEFORE_WORKFLOWS.put(4, "leader");
        BEFORE_WORKFLOWS.put(5, "retention");
        BEFORE_WORKFLOWS.put(6, "unique");
        BEFORE_WORKFLOWS.put(7, "cron");
    }

    private void migrateToTheReleaseBefore() throws SQLException {
        SqlStatements sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql.get("create_schema"));
            s.execute(sql.get("create_migrations_table"));
            for (Map.Entry<Integer, String> m : BEFORE_WORKFLOWS.entrySet()) {
                for (String statement : sql.dialect().scriptStatements(sql.migration(m.getKey(), m.getValue()))) {
                    s.execute(statement);
                }
                try (PreparedStatement record = c.prepareStatement(sql.get("record_migration"))) {
                    record.setInt(1, m.getKey());
                    record.setString(2, m.getValue());
                    record.executeUpdate();
                }
            }
        }
    }

    @Test
    void aSchemaOfTheReleaseBeforeUpgradesWithItsJobsIntact() throws Exception {
        migrateToTheReleaseBefore();
        String finished = nowPlus(Duration.ofMinutes(-5));
        execute("INSERT INTO " + jobsTable() + " (queue, kind, args, state, attempt, finished_at) VALUES"
                + " ('default', 'upgraded', '{\"n\": 1}', 'available', 0, NULL),"
                + " ('default', 'upgraded', '{\"n\": 2}', 'scheduled', 0, NULL),"
                + " ('default', 'upgraded', '{\"n\": 3}', 'retryable', 1, NULL),"
                + " ('default', 'upgraded', '{\"n\": 4}', 'completed', 1, " + finished + "),"
                + " ('default', 'upgraded', '{\"n\": 5}', 'discarded', 3, " + finished + "),"
                + " ('default', 'upgraded', '{\"n\": 6}', 'cancelled', 0, " + finished + "),"
                + " ('default', 'upgraded', '{\"n\": 7}', 'available', 0, NULL)");
        long newest = queryLong("SELECT max(id) FROM " + jobsTable());
        execute("DELETE FROM " + jobsTable() + " WHERE id = " + newest);
        String before = snapshot();

        assertThat(builder().build().migrate()).as("applied on upgrade").containsExactly(9, 10, 11, 12, 13, 14, 15, 16);

        Skipjack s = client(builder().queue("default", 2).handler(WORK, job -> Outcome.complete()));
        assertThat(snapshot()).as("every job as it was").isEqualTo(before);
        long next = s.enqueue(WORK, new Args(8));
        assertThat(next).as("ids go on past the job deleted before the upgrade").isGreaterThan(newest);
        assertThat(s.find(next).orElseThrow().workflowId()).isNull();

        s.start();
        EnqueuedWorkflow w = s.enqueueWorkflow(Workflow.named("after-upgrade")
                .add("a", JobRequest.of(WORK, new Args(9)))
                .add("b", JobRequest.of(WORK, new Args(10)), dependsOn("a")));
        await("the workflow to finish", Duration.ofSeconds(60),
                () -> s.admin().workflow(w.id()).orElseThrow().state() == WorkflowState.COMPLETED);
        await("the old available job to run", Duration.ofSeconds(60),
                () -> queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE state = 'available'") == 0);
        assertThat(w.jobId("a")).isGreaterThan(next);
    }

    /** Every job's id, state, attempt and args, in id order, as text. */
    private String snapshot() {
        StringBuilder out = new StringBuilder();
        for (Object[] row : rows("SELECT id, state, attempt, " + backend().jsonInt("args", "n")
                + ", finished_at IS NULL FROM " + jobsTable() + " ORDER BY id")) {
            out.append(java.util.Arrays.toString(row)).append('\n');
        }
        return out.toString();
    }

    private List<Object[]> rows(String query) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(query);
             java.sql.ResultSet rs = ps.executeQuery()) {
            List<Object[]> out = new java.util.ArrayList<>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    row[i] = String.valueOf(rs.getObject(i + 1));
                }
                out.add(row);
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(query + ": " + e.getMessage(), e);
        }
    }
}
