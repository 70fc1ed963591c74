package dev.skipjack;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.support.LogCapture;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14: the symptom of PgBouncer in transaction mode, server-side prepared statements that
 * vanish between statements ("prepared statement "S_1" does not exist"), is named with its fix:
 * {@code prepareThreshold=0}, PgBouncer's {@code max_prepared_statements}, {@code listenNotify(false)}.
 *
 * <p>PostgreSQL only: no other backend has the symptom. Without a PgBouncer, the test makes the
 * same error on a real server: one pooled connection whose driver prepares on the server at once
 * ({@code prepareThreshold=1}), and a {@code DEALLOCATE ALL} the driver does not see (inside a
 * {@code DO} block), which is what a transaction-mode pooler does by handing the next statement to
 * another session.
 */
class PgBouncerHintTest extends DatabaseTest {

    record Note(String text) {
    }

    private HikariDataSource single;

    @AfterEach
    void closePool() {
        if (single != null) {
            single.close();
        }
    }

    private Skipjack onOneConnectionPreparingAtOnce() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestBackend.POSTGRESQL.jdbcUrl());
        config.setMaximumPoolSize(1);
        config.addDataSourceProperty("prepareThreshold", "1");
        single = new HikariDataSource(config);
        Skipjack s = Skipjack.builder(single).schema(schema).kind(JobKind.of("note", Note.class)).build();
        s.migrate();
        return s;
    }

    private void forgetPreparedStatementsBehindTheDriversBack() throws Exception {
        try (Connection c = single.getConnection(); Statement st = c.createStatement()) {
            st.execute("DO $$ BEGIN EXECUTE 'DEALLOCATE ALL'; END $$");
        }
    }

    /**
     * Two jobs, so the insert runs in a transaction of its own: in auto-commit (a single job's
     * enqueue is one statement there) the driver re-prepares a lost statement and runs it again by
     * itself, and the error never reaches Skipjack.
     */
    private static void enqueueTwo(Skipjack s, String text) {
        s.enqueueAll(List.of(JobRequest.of("note", new Note(text)), JobRequest.of("note", new Note(text + ", too"))));
    }

    @Test
    void lostPreparedStatementsAreNamedWithTheirFix() throws Exception {
        Skipjack s = onOneConnectionPreparingAtOnce();
        // The second use of a statement text is the first prepared on the server, under a name (S_1...).
        enqueueTwo(s, "first use");
        enqueueTwo(s, "prepares the insert on the server");
        forgetPreparedStatementsBehindTheDriversBack();
        try (LogCapture log = new LogCapture()) {
            assertThatThrownBy(() -> enqueueTwo(s, "uses the prepared insert"))
                    .isInstanceOf(SkipjackException.class)
                    .hasMessageContaining("does not exist")
                    .hasMessageContaining("prepareThreshold=0")
                    .hasMessageContaining("max_prepared_statements")
                    .hasMessageContaining("listenNotify(false)");
            // The driver re-prepares after the error: prepare again and lose it again.
            enqueueTwo(s, "first use");
            enqueueTwo(s, "prepares the insert on the server");
            forgetPreparedStatementsBehindTheDriversBack();
            assertThatThrownBy(() -> enqueueTwo(s, "again")).isInstanceOf(SkipjackException.class);
            // Said once per process, not once per failure.
            assertThat(log.linesContaining("prepareThreshold=0")).hasSize(1);
            assertThat(log.linesContaining("prepareThreshold=0").get(0)).contains("WARN").contains("PgBouncer");
        }
    }

    @Test
    void otherFailuresGetNoHint() throws Exception {
        Skipjack s = onOneConnectionPreparingAtOnce();
        execute("DROP TABLE " + jobsTable() + " CASCADE");
        assertThatThrownBy(() -> s.enqueue("note", new Note("nowhere to go")))
                .isInstanceOf(SkipjackException.class)
                .hasMessageNotContaining("prepareThreshold");
    }
}
