package dev.skipjack.cli;

import dev.skipjack.Backend;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatabaseUrlTest {

    @Test
    void libpqUrlWithPasswordBecomesJdbcUrlAndCredentials() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://app:s3cret@db.example.com:5433/orders");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:5433/orders");
        assertThat(url.user()).isEqualTo("app");
        assertThat(url.password()).isEqualTo("s3cret");
    }

    @Test
    void libpqUrlWithoutPasswordHasUserOnly() {
        DatabaseUrl url = DatabaseUrl.parse("postgresql://app@localhost/orders");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost/orders");
        assertThat(url.user()).isEqualTo("app");
        assertThat(url.password()).isNull();
    }

    @Test
    void libpqUrlWithoutUserInfoHasNoCredentials() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://localhost:5432/orders");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/orders");
        assertThat(url.user()).isNull();
        assertThat(url.password()).isNull();
    }

    @Test
    void queryParametersAreKept() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://app:pw@db:5432/orders?sslmode=require&connectTimeout=5");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/orders?sslmode=require&connectTimeout=5");
    }

    @Test
    void percentEncodedUserInfoIsDecodedAfterSplittingAtTheColon() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://us%40er%3A1:p%3Ass%40w%2Frd+1%20@db/orders");

        assertThat(url.user()).isEqualTo("us@er:1");
        assertThat(url.password()).isEqualTo("p:ss@w/rd+1 ");
    }

    @Test
    void schemeIsCaseInsensitiveAndIpv6HostsKeepTheirBrackets() {
        DatabaseUrl url = DatabaseUrl.parse("PostgreSQL://app@[::1]:5432/orders");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5432/orders");
    }

    @Test
    void missingDatabaseLeavesItToTheServerDefault() {
        assertThat(DatabaseUrl.parse("postgres://app@db").jdbcUrl()).isEqualTo("jdbc:postgresql://db/");
    }

    @Test
    void jdbcUrlPassesThroughUnchanged() {
        String jdbc = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&password=pw";

        DatabaseUrl url = DatabaseUrl.parse(jdbc);

        assertThat(url.jdbcUrl()).isEqualTo(jdbc);
        assertThat(url.user()).isNull();
        assertThat(url.password()).isNull();
    }

    @Test
    void passwordsNeverShowInDisplayNameOrToString() {
        DatabaseUrl libpq = DatabaseUrl.parse("postgres://app:s3cret@db/orders");
        DatabaseUrl jdbc = DatabaseUrl.parse("jdbc:postgresql://db/orders?user=app&password=s3cret&ssl=true");

        assertThat(libpq.displayName()).isEqualTo("jdbc:postgresql://db/orders as app");
        assertThat(jdbc.displayName()).isEqualTo("jdbc:postgresql://db/orders?user=app&password=***&ssl=true");
        assertThat(libpq.toString()).doesNotContain("s3cret");
        assertThat(jdbc.toString()).doesNotContain("s3cret");
    }

    @Test
    void otherDatabasesAreRefusedByName() {
        assertThatThrownBy(() -> DatabaseUrl.parse("jdbc:oracle:thin:@db:1521/orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PostgreSQL, MariaDB, MySQL and SQLite");
        assertThatThrownBy(() -> DatabaseUrl.parse("sqlserver://app:s3cret@db/orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported database URL sqlserver://app:***@db/orders")
                .hasMessageContaining("postgres://user:password@host:port/database")
                .hasMessageContaining("mariadb://user:password@host:port/database");
    }

    @Test
    void mariadbJdbcUrlPassesThroughAndNamesItsDatabase() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:mariadb://db.example.com:3306/orders?user=root&password=s3cret");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:mariadb://db.example.com:3306/orders?user=root&password=s3cret");
        assertThat(url.isMySqlFamily()).isTrue();
        assertThat(url.isSqlite()).isFalse();
        assertThat(url.backend()).isEqualTo(Backend.MARIADB);
        assertThat(url.mySqlFamilyDatabase()).contains("orders");
        assertThat(url.displayName()).doesNotContain("s3cret");
        assertThat(DatabaseUrl.parse("jdbc:mariadb:replication://db1,db2/orders").mySqlFamilyDatabase()).contains("orders");
        assertThat(DatabaseUrl.parse("jdbc:mariadb://db:3306/").mySqlFamilyDatabase()).isEmpty();
        assertThat(DatabaseUrl.parse("jdbc:mariadb://db:3306?user=root").mySqlFamilyDatabase()).isEmpty();
    }

    @Test
    void loopbackMariaDbUrlsWithoutTlsSettingsGetTlsOff() {
        assertThat(DatabaseUrl.parse("jdbc:mariadb://127.0.0.1:3306/test?user=root").jdbcUrl())
                .isEqualTo("jdbc:mariadb://127.0.0.1:3306/test?user=root&sslMode=disable");
        assertThat(DatabaseUrl.parse("jdbc:mariadb://localhost/test").jdbcUrl()).isEqualTo("jdbc:mariadb://localhost/test?sslMode=disable");
        assertThat(DatabaseUrl.parse("mariadb://root@[::1]:3306/test").jdbcUrl())
                .isEqualTo("jdbc:mariadb://[::1]:3306/test?sslMode=disable");
        assertThat(DatabaseUrl.parse("jdbc:mysql://127.0.0.1/test").jdbcUrl())
                .isEqualTo("jdbc:mysql://127.0.0.1/test?permitMysqlScheme&sslMode=disable");
        // What the URL says of TLS stands; other hosts, and hosts merely starting like a loopback name, keep the default.
        assertThat(DatabaseUrl.parse("jdbc:mariadb://127.0.0.1/test?sslMode=verify-full").jdbcUrl())
                .isEqualTo("jdbc:mariadb://127.0.0.1/test?sslMode=verify-full");
        assertThat(DatabaseUrl.parse("jdbc:mariadb://localhost.example.com/test").jdbcUrl())
                .isEqualTo("jdbc:mariadb://localhost.example.com/test");
        assertThat(DatabaseUrl.parse("jdbc:mariadb://10.0.0.5/test").jdbcUrl()).isEqualTo("jdbc:mariadb://10.0.0.5/test");
    }

    @Test
    void mysqlJdbcUrlGetsTheMariaDbDriversPermission() {
        assertThat(DatabaseUrl.parse("jdbc:mysql://db/orders").jdbcUrl()).isEqualTo("jdbc:mysql://db/orders?permitMysqlScheme");
        assertThat(DatabaseUrl.parse("jdbc:mysql://db/orders?user=app").jdbcUrl())
                .isEqualTo("jdbc:mysql://db/orders?user=app&permitMysqlScheme");
        assertThat(DatabaseUrl.parse("jdbc:mysql://db/orders?permitMysqlScheme=true").jdbcUrl())
                .isEqualTo("jdbc:mysql://db/orders?permitMysqlScheme=true");
        assertThat(DatabaseUrl.parse("jdbc:mysql://db/orders").backend()).isEqualTo(Backend.MYSQL);
    }

    @Test
    void mariadbAndMysqlShortFormsBecomeJdbcUrlsAndCredentials() {
        DatabaseUrl maria = DatabaseUrl.parse("mariadb://app:s%40cret@db.example.com:3307/orders?sslMode=disable");
        assertThat(maria.jdbcUrl()).isEqualTo("jdbc:mariadb://db.example.com:3307/orders?sslMode=disable");
        assertThat(maria.user()).isEqualTo("app");
        assertThat(maria.password()).isEqualTo("s@cret");
        assertThat(maria.mySqlFamilyDatabase()).contains("orders");

        DatabaseUrl mysql = DatabaseUrl.parse("MySQL://app@db/orders");
        assertThat(mysql.jdbcUrl()).isEqualTo("jdbc:mysql://db/orders?permitMysqlScheme");
        assertThat(mysql.user()).isEqualTo("app");
        assertThat(mysql.password()).isNull();

        assertThatThrownBy(() -> DatabaseUrl.parse("mysql://app:p@ss@db/orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mysql://app:***@db/orders names no host")
                .hasMessageContaining("use a jdbc:mysql: URL");
    }

    @Test
    void postgresAndSqliteNameTheirBackends() {
        assertThat(DatabaseUrl.parse("postgres://app@db/orders").backend()).isEqualTo(Backend.POSTGRESQL);
        assertThat(DatabaseUrl.parse("jdbc:sqlite:/tmp/jobs.db").backend()).isEqualTo(Backend.SQLITE);
        assertThat(DatabaseUrl.parse("postgres://app@db/orders").isMySqlFamily()).isFalse();
        assertThat(DatabaseUrl.parse("postgres://app@db/orders").mySqlFamilyDatabase()).isEmpty();
    }

    @Test
    void unencodedAtSignInPasswordGivesClearErrorWithoutThePassword() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres://app:p@ss@db/orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postgres://app:***@db/orders names no host")
                .hasMessageNotContaining("ss@");
    }

    @Test
    void malformedUrlSaysWhere() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres://app:pw@db/orders with space"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed database URL")
                .hasMessageContaining("at index");
    }

    @Test
    void blankUrlIsRefused() {
        assertThatThrownBy(() -> DatabaseUrl.parse("  "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void sqliteUrlGetsTheRequiredSettingsWhereItSetsNone() {
        assertThat(DatabaseUrl.parse("jdbc:sqlite:/tmp/jobs.db").jdbcUrl())
                .isEqualTo("jdbc:sqlite:/tmp/jobs.db?journal_mode=WAL&busy_timeout=10000&transaction_mode=IMMEDIATE");
        assertThat(DatabaseUrl.parse("jdbc:sqlite:/tmp/jobs.db?busy_timeout=30000").jdbcUrl())
                .isEqualTo("jdbc:sqlite:/tmp/jobs.db?busy_timeout=30000&journal_mode=WAL&transaction_mode=IMMEDIATE");
        assertThat(DatabaseUrl.parse("jdbc:sqlite:file:/jobs?vfs=memdb").jdbcUrl())
                .isEqualTo("jdbc:sqlite:file:/jobs?vfs=memdb&busy_timeout=10000&transaction_mode=IMMEDIATE");
        assertThat(DatabaseUrl.parse("jdbc:sqlite:/tmp/jobs.db").isSqlite()).isTrue();
    }
}
