package dev.skipjack;

import dev.skipjack.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The suite runs on the PostgreSQL major it was asked for. CI runs it on the embedded newest major
 * and again on an older supported one ({@code -Dzonky.binaries.version=... -Dskipjack.test.postgres.major=N},
 * see {@code .ci/run}); without this check a wrong binaries version would pass silently on the default.
 */
class PostgresVersionTest {

    @Test
    void runsOnTheRequestedMajor() throws Exception {
        int major;
        try (var ds = TestDatabase.dataSource(1)) {
            major = serverMajor(ds);
        }
        String requested = System.getProperty("skipjack.test.postgres.major");
        if (requested != null && !requested.isBlank()) {
            assertThat(major).as("server major version").isEqualTo(Integer.parseInt(requested.trim()));
        }
        assertThat(major).as("Skipjack supports PostgreSQL 12 and later").isGreaterThanOrEqualTo(12);
    }

    private static int serverMajor(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int / 10000")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
