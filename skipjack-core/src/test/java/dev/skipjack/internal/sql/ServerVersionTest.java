package dev.skipjack.internal.sql;

import dev.skipjack.Backend;
import dev.skipjack.UnsupportedDatabaseException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Version texts as servers report them, and the decision detection makes on each. */
class ServerVersionTest {

    @Test
    void mariaDb10ReportsItselfBehindTheReplicationPrefix() {
        ServerVersion v = ServerVersion.parse("5.5.5-10.11.6-MariaDB-0+deb12u1");
        assertThat(v).isEqualTo(new ServerVersion(10, 11, 6, true));
    }

    @Test
    void mariaDb11HasNoPrefix() {
        assertThat(ServerVersion.parse("11.4.5-MariaDB-log")).isEqualTo(new ServerVersion(11, 4, 5, true));
    }

    @Test
    void mySqlVersionWithDistributionSuffix() {
        assertThat(ServerVersion.parse("8.0.36-0ubuntu0.22.04.1")).isEqualTo(new ServerVersion(8, 0, 36, false));
    }

    @Test
    void missingPartsAreZero() {
        assertThat(ServerVersion.parse("3.35")).isEqualTo(new ServerVersion(3, 35, 0, false));
    }

    @Test
    void textWithoutVersionIsRefused() {
        assertThatThrownBy(() -> ServerVersion.parse("MariaDB")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mariaDb106IsAcceptedAsMariaDbNotAsMySql55() {
        assertThat(DatabaseDetector.mysqlFamily("MySQL", "5.5.5-10.6.18-MariaDB").backend()).isEqualTo(Backend.MARIADB);
    }

    @Test
    void mariaDb105IsRefusedWithProductVersionAndSupportedList() {
        assertThatThrownBy(() -> DatabaseDetector.mysqlFamily("MySQL", "5.5.5-10.5.23-MariaDB"))
                .isInstanceOf(UnsupportedDatabaseException.class)
                .hasMessageContaining("MariaDB 5.5.5-10.5.23-MariaDB")
                .hasMessageContaining("10.6 or later")
                .hasMessageContaining("PostgreSQL 12+, MariaDB 10.6+, MySQL 8.0+, SQLite 3.35+");
    }

    @Test
    void mySql57IsRefusedAndMySql80Accepted() {
        assertThatThrownBy(() -> DatabaseDetector.mysqlFamily("MySQL", "5.7.44-log"))
                .isInstanceOf(UnsupportedDatabaseException.class)
                .hasMessageContaining("MySQL 5.7.44-log");
        assertThat(DatabaseDetector.mysqlFamily("MySQL", "8.0.36").backend()).isEqualTo(Backend.MYSQL);
    }

    @Test
    void postgres11IsRefusedAnd12Accepted() {
        assertThatThrownBy(() -> DatabaseDetector.postgres("PostgreSQL", "PostgreSQL 11.22 on x86_64", 11, 22))
                .isInstanceOf(UnsupportedDatabaseException.class)
                .hasMessageContaining("PostgreSQL 11.22");
        assertThat(DatabaseDetector.postgres("PostgreSQL", "PostgreSQL 12.1", 12, 1).backend()).isEqualTo(Backend.POSTGRESQL);
    }

    @Test
    void cockroachAnsweringAsPostgresIsRefused() {
        assertThatThrownBy(() -> DatabaseDetector.postgres("PostgreSQL",
                "CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu)", 13, 0))
                .isInstanceOf(UnsupportedDatabaseException.class)
                .hasMessageContaining("CockroachDB");
    }

    @Test
    void yugabyteAnsweringAsPostgresIsRefused() {
        assertThatThrownBy(() -> DatabaseDetector.postgres("PostgreSQL",
                "PostgreSQL 15.12-YB-2025.1.0.0-b0 on x86_64-pc-linux-gnu", 15, 12))
                .isInstanceOf(UnsupportedDatabaseException.class)
                .hasMessageContaining("-YB-")
                .hasMessageContaining("docs/scaling.md");
    }
}
