package dev.skipjack;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14: a pool smaller than what a started node uses at once is named at start, with the
 * numbers and what to change; nothing is said when it is large enough, or when the DataSource does
 * not say how large it is.
 */
class PoolSizeWarningTest extends EveryBackendTest {

    record Args(int n) {
    }

    private static final String WARNING = "connection pool";

    private Skipjack.Builder transactionalNode(DataSource ds) {
        return Skipjack.builder(ds).schema(schema).queue("default", 16)
                .transactionalHandler(JobKind.of("tx", Args.class), (job, tx) -> Outcome.complete());
    }

    private List<String> warningsAtStart(Skipjack.Builder builder) {
        Skipjack s = builder.build();
        s.migrate();
        try (LogCapture log = new LogCapture()) {
            s.start();
            s.stop(java.time.Duration.ofSeconds(5));
            return log.linesContaining(WARNING);
        }
    }

    @Test
    void poolSmallerThanTheNodeNeedsIsNamedWithTheNumbers() {
        try (HikariDataSource small = backend.newDataSource(2)) {
            List<String> warnings = warningsAtStart(transactionalNode(small));
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0))
                    .contains("WARN")
                    .contains("HikariDataSource")
                    .contains("at most 2 connections")
                    .contains("16 for transactional jobs")
                    .contains("Raise the pool's maximum size to at least");
        }
    }

    @Test
    void poolLargeEnoughIsNotMentioned() {
        try (HikariDataSource large = backend.newDataSource(40)) {
            assertThat(warningsAtStart(transactionalNode(large))).isEmpty();
        }
    }

    @Test
    void leaseModeNodeNeedsNoConnectionPerJob() {
        // Lease-mode handlers hold no Skipjack connection while they run: 16 job threads fit in 12.
        try (HikariDataSource pool = backend.newDataSource(12)) {
            assertThat(warningsAtStart(Skipjack.builder(pool).schema(schema).queue("default", 16)
                    .handler(JobKind.of("lease", Args.class), job -> Outcome.complete()))).isEmpty();
        }
    }

    @Test
    void dataSourceThatDoesNotSayItsSizeIsNotChecked() {
        try (HikariDataSource small = backend.newDataSource(2)) {
            assertThat(warningsAtStart(transactionalNode(new Opaque(small)))).isEmpty();
        }
    }

    /** A DataSource that hides its pool, as a proxy might. */
    private record Opaque(DataSource delegate) implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            return delegate.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return delegate.getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return delegate.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            delegate.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            delegate.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return delegate.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getLogger("opaque");
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
