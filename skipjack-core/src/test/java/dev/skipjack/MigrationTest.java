package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
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
class MigrationTest extends DatabaseTest {

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

        assertThat(applied).as("each version applied by exactly one node").containsExactly(1, 3, 4, 5);
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".skipjack_schema_migrations")).isEqualTo(4);
        assertThat(builder().build().migrate()).as("nothing left to apply").isEmpty();
    }

    @Test
    void aSchemaMigratedByTheLastReleaseGetsTheNewVersionOnUpgrade() {
        // A schema migrated before V005 (retention) existed: V001, V003 and V004 recorded.
        Skipjack node = builder().build();
        node.migrate();
        execute("DROP INDEX \"" + schema + "\".skipjack_jobs_finished_idx");
        execute("DELETE FROM \"" + schema + "\".skipjack_schema_migrations WHERE version = 5");

        assertThat(node.migrate()).as("applied on upgrade").containsExactly(5);
        assertThat(queryLong("SELECT count(*) FROM pg_indexes WHERE schemaname = ? AND indexname = 'skipjack_jobs_finished_idx'",
                schema)).isEqualTo(1);
    }

    @Test
    void tablePrefixAndSchemaAreHonoured() {
        Skipjack s = client(builder().tablePrefix("acme_q_").kind(JobKind.of("k", Object.class)));
        long id = s.enqueue("k", java.util.Map.of());
        assertThat(queryLong("SELECT count(*) FROM \"" + schema + "\".acme_q_jobs WHERE id = ?", id)).isEqualTo(1);
    }

    @Test
    void exportedSqlCreatesTheSameSchema() {
        String sql = builder().tablePrefix("exported_").build().migrationSql();
        execute(sql);
        assertThat(queryLong("SELECT count(*) FROM pg_indexes WHERE schemaname = ? AND tablename = 'exported_jobs'", schema))
                .as("primary key and the four partial indexes").isEqualTo(5);
    }

    @Test
    void invalidSchemaOrPrefixIsRefusedBeforeAnySql() {
        assertThatThrownBy(() -> builder().schema("public\"; DROP TABLE x; --"))
                .isInstanceOf(InvalidIdentifierException.class).hasMessageContaining("invalid schema name");
        assertThatThrownBy(() -> builder().tablePrefix("Robert'); --"))
                .isInstanceOf(InvalidIdentifierException.class).hasMessageContaining("invalid table prefix");
    }
}
