package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** F-20: migrations are versioned, idempotent, safe from many nodes at once, and exportable. */
class MigrationTest extends EveryBackendTest {

    @Test
    void manyNodesMigratingAtOnceApplyEachVersionExactlyOnce() throws Exception {
        int nodes = 8;
        CyclicBarrier start = new CyclicBarrier(nodes);
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        List<Future<List<Integer>>> results = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Skipjack node = builder().build();
            results.add(pool.submit((Callable<List<Integer>>) () -> {
                start.await();
                return node.migrate();
            }));
        }
        List<Integer> applied = new ArrayList<>();
        for (Future<List<Integer>> f : results) {
            applied.addAll(f.get());
        }
        pool.shutdown();

        // There is no V002 or V008.
        assertThat(applied).as("each version applied by exactly one node").containsExactly(1, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16);
        assertThat(queryLong("SELECT count(*) FROM " + table("skipjack_schema_migrations"))).isEqualTo(14);
        assertThat(builder().build().migrate()).as("nothing left to apply").isEmpty();
    }

    @Test
    void aSchemaMigratedByTheLastReleaseGetsTheNewVersionOnUpgrade() {
        // A schema migrated before V006 (unique jobs) and V007 (cron) existed: V001 to V005 recorded
        // (and V009, whose changes this test leaves in place; WorkflowMigrationTest upgrades to it).
        Skipjack node = builder().build();
        node.migrate();
        switch (backend()) {
            case POSTGRESQL, SQLITE -> {
                execute("DROP INDEX " + table("skipjack_jobs_unique_idx"));
                execute("ALTER TABLE " + jobsTable() + " DROP COLUMN unique_includes_completed");
            }
            default -> execute("ALTER TABLE " + jobsTable() + " DROP COLUMN unique_slot,"
                    + " DROP COLUMN unique_includes_completed, MODIFY COLUMN unique_key VARCHAR(255)");
        }
        execute("DROP TABLE " + table("skipjack_cron_ticks"));
        execute("DROP TABLE " + table("skipjack_cron_schedules"));
        execute("DELETE FROM " + table("skipjack_schema_migrations") + " WHERE version IN (6, 7)");
        assertThat(indexes("skipjack_jobs")).doesNotContain("skipjack_jobs_unique_idx");

        assertThat(node.migrate()).as("applied on upgrade").containsExactly(6, 7);
        assertThat(indexes("skipjack_cron_schedules")).contains("skipjack_cron_schedules_due_idx");
        assertThat(indexes("skipjack_jobs")).contains("skipjack_jobs_unique_idx");
    }

    @Test
    void tablePrefixAndSchemaAreHonoured() {
        Skipjack s = client(builder().tablePrefix("acme_q_").kind(JobKind.of("k", Object.class)));
        long id = s.enqueue("k", java.util.Map.of());
        assertThat(queryLong("SELECT count(*) FROM " + table("acme_q_jobs") + " WHERE id = ?", id)).isEqualTo(1);
    }

    @Test
    void exportedSqlCreatesTheSameSchema() {
        String sql = builder().tablePrefix("exported_").build().migrationSql();
        if (backend() == TestBackend.POSTGRESQL) {
            execute(sql);
        } else {
            // The export is a script for the mysql client: one statement per ';' line end.
            Dialect.of(backend().backend()).scriptStatements(sql).forEach(this::execute);
        }
        java.util.List<String> expected = new java.util.ArrayList<>(java.util.List.of("exported_jobs_claim_idx",
                "exported_jobs_due_idx", "exported_jobs_lease_idx", "exported_jobs_finished_idx",
                "exported_jobs_unique_idx", "exported_jobs_workflow_step_idx", "exported_jobs_concurrency_idx",
                "exported_jobs_concurrency_started_idx", "exported_jobs_waiting_key_idx"));
        if (backend() != TestBackend.SQLITE) { // SQLite's INTEGER PRIMARY KEY is the table's rowid, no index
            expected.add(backend() == TestBackend.POSTGRESQL ? "exported_jobs_pkey" : "PRIMARY");
        }
        assertThat(indexes("exported_jobs")).as("primary key and the (partial, on PostgreSQL and SQLite) indexes")
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aSchemaBuiltFromTheExportedScriptsIsOneMigrateRecognises() {
        // As Flyway or Liquibase would apply them: script by script, statement by statement.
        Skipjack exporter = builder().tablePrefix("exported_").build();
        List<MigrationScript> scripts = exporter.migrationScripts();
        assertThat(scripts).extracting(MigrationScript::version).containsExactly(1, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16);
        assertThat(scripts.get(0).flywayFileName()).isEqualTo("V001__skipjack_jobs.sql");
        for (MigrationScript script : scripts) {
            script.statements().forEach(this::execute);
        }

        assertThat(queryLong("SELECT count(*) FROM " + table("exported_schema_migrations")))
                .as("every script recorded its version").isEqualTo(scripts.size());
        Skipjack client = builder().tablePrefix("exported_").kind(JobKind.of("k", Object.class)).build();
        assertThat(client.migrate()).as("migrate() finds nothing left to apply").isEmpty();
        long id = client.enqueue("k", java.util.Map.of());
        assertThat(queryLong("SELECT count(*) FROM " + table("exported_jobs") + " WHERE id = ?", id)).isEqualTo(1);
    }

    /** The index names of a table of this test's schema, from the catalog. */
    private java.util.Set<String> indexes(String tableName) {
        String query = switch (backend()) {
            case POSTGRESQL -> "SELECT indexname FROM pg_indexes WHERE schemaname = ? AND tablename = ?";
            case SQLITE -> "SELECT name FROM pragma_index_list(?2, ?1)";
            default -> "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = ? AND table_name = ?";
        };
        java.util.Set<String> names = new java.util.HashSet<>();
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(query)) {
            ps.setString(1, schema);
            ps.setString(2, tableName);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return names;
    }

    @Test
    void invalidSchemaOrPrefixIsRefusedBeforeAnySql() {
        assertThatThrownBy(() -> builder().schema("public\"; DROP TABLE x; --"))
                .isInstanceOf(InvalidIdentifierException.class).hasMessageContaining("invalid schema name");
        assertThatThrownBy(() -> builder().tablePrefix("Robert'); --"))
                .isInstanceOf(InvalidIdentifierException.class).hasMessageContaining("invalid table prefix");
    }
}
