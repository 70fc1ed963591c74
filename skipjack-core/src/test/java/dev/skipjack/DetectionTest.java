package dev.skipjack;

import dev.skipjack.support.TestBackend;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** F-24: the backend is detected from a real DataSource, and an unsupported database is refused at build time. */
class DetectionTest {

    @Test
    void detectsPostgres() {
        assertThat(Skipjack.builder(TestBackend.POSTGRESQL.sharedDataSource()).build().backend())
                .isEqualTo(Backend.POSTGRESQL);
    }

    @Test
    void detectsMariaDbFromItsServerVersionAndDefaultsTheSchemaToTheUrlsDatabase() {
        Skipjack s = Skipjack.builder(TestBackend.MARIADB.sharedDataSource()).build();
        assertThat(s.backend()).isEqualTo(Backend.MARIADB);
        assertThat(s.jobsTable()).isEqualTo("`skipjack_test`.`skipjack_jobs`");
    }

    @Test
    void twoPhaseKindsAreRefusedAtBuildOnMariaDb() {
        JobKind<String> payment = JobKind.of("payment", String.class);
        assertThatThrownBy(() -> Skipjack.builder(TestBackend.MARIADB.sharedDataSource())
                .twoPhaseHandler(payment, noOpTwoPhaseHandler())
                .build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("[payment]")
                .hasMessageContaining("not on MariaDB")
                .satisfies(e -> assertThat(((InvalidConfigurationException) e).option()).isEqualTo("kind"));
    }

    @Test
    void h2IsRefusedOnceAtBuildWithProductVersionAndSupportedList() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:detection;DB_CLOSE_DELAY=-1");
        AtomicInteger connections = new AtomicInteger();
        DataSource counted = countingConnections(h2, connections);

        assertThatThrownBy(() -> Skipjack.builder(counted).schema("public").build())
                .isInstanceOf(UnsupportedDatabaseException.class)
                .satisfies(e -> {
                    UnsupportedDatabaseException u = (UnsupportedDatabaseException) e;
                    assertThat(u.product()).isEqualTo("H2");
                    assertThat(u.version()).startsWith("2.");
                    assertThat(u.option()).isEqualTo("dataSource");
                })
                .hasMessageContaining("PostgreSQL 12+, MariaDB 10.6+, MySQL 8.0+, SQLite 3.35+")
                .hasMessageContaining("backend(Backend.POSTGRESQL)");
        // Refused from metadata alone: one connection, and nothing of Skipjack's was created.
        assertThat(connections).hasValue(1);
        try (Connection c = h2.getConnection();
             ResultSet rs = c.getMetaData().getTables(null, null, "%SKIPJACK%", null)) {
            assertThat(rs.next()).isFalse();
        }
    }

    @Test
    void overrideSkipsDetection() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:override;DB_CLOSE_DELAY=-1");
        AtomicInteger connections = new AtomicInteger();
        // A PostgreSQL look-alike the user vouches for: no connection at build, the PostgreSQL dialect.
        Skipjack s = Skipjack.builder(countingConnections(h2, connections)).backend(Backend.POSTGRESQL).build();
        assertThat(s.backend()).isEqualTo(Backend.POSTGRESQL);
        assertThat(connections).hasValue(0);
    }

    @Test
    void nullOverrideIsRefused() {
        assertThatThrownBy(() -> Skipjack.builder(TestBackend.POSTGRESQL.sharedDataSource()).backend(null))
                .isInstanceOf(NullPointerException.class);
    }

    /** A two-phase handler that is never run: the backends without prepared transactions refuse it at build. */
    static TwoPhaseJobHandler<String> noOpTwoPhaseHandler() {
        return new TwoPhaseJobHandler<>() {
            @Override
            public Outcome prepare(Job<String> job, Connection tx) {
                return Outcome.complete();
            }

            @Override
            public void callExternal(Job<String> job) {
            }

            @Override
            public boolean externalEffectHappened(long jobId, int attempt) {
                return false;
            }
        };
    }

    /** {@code target}, counting the connections opened through it. */
    static DataSource countingConnections(DataSource target, AtomicInteger count) {
        return (DataSource) java.lang.reflect.Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        count.incrementAndGet();
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
