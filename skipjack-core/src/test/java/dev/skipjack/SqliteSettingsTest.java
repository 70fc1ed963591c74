package dev.skipjack;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-23: the SQLite DataSource recipe of docs/backends.md works, and a DataSource without one of
 * its settings is refused at build with the setting named; in memory, only a database every
 * connection shares ({@code file:/name?vfs=memdb}) is accepted.
 */
class SqliteSettingsTest {

    @TempDir
    Path dir;

    record Ping(int n) {
    }

    /** The recipe: WAL, a busy timeout, IMMEDIATE transactions. */
    static SQLiteConfig recipe() {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setBusyTimeout(10_000);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        return config;
    }

    private SQLiteDataSource dataSource(String url, SQLiteConfig config) {
        SQLiteDataSource ds = new SQLiteDataSource(config);
        ds.setUrl(url);
        return ds;
    }

    private String file() {
        return "jdbc:sqlite:" + dir.resolve("app.db");
    }

    @Test
    void theRecipeOnAFileRunsJobs() throws Exception {
        runsAJob(dataSource(file(), recipe()));
    }

    @Test
    void aSharedInMemoryDatabaseRunsJobs() throws Exception {
        SQLiteConfig config = recipe();
        config.setJournalMode(SQLiteConfig.JournalMode.MEMORY); // no WAL in memory
        SQLiteDataSource ds = dataSource("jdbc:sqlite:file:/skipjack-settings-test?vfs=memdb", config);
        // The database lives while a connection to it is open (a pool's idle connection, in an application).
        try (java.sql.Connection keepAlive = ds.getConnection()) {
            runsAJob(ds);
        }
    }

    private void runsAJob(SQLiteDataSource ds) throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        Skipjack s = Skipjack.builder(ds).pollInterval(Duration.ofMillis(50)).queue("default", 2)
                .handler(JobKind.of("ping", Ping.class), job -> {
                    ran.countDown();
                    return Outcome.complete();
                }).build();
        assertThat(s.backend()).isEqualTo(Backend.SQLITE);
        assertThat(s.jobsTable()).isEqualTo("\"main\".\"skipjack_jobs\"");
        s.migrate();
        s.start();
        try {
            s.enqueue("ping", new Ping(1));
            assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            s.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void deferredTransactionsAreRefused() {
        SQLiteConfig config = recipe();
        config.setTransactionMode(SQLiteConfig.TransactionMode.DEFERRED);
        assertRefused(dataSource(file(), config), "dataSource", "transaction_mode=IMMEDIATE");
    }

    @Test
    void aShortBusyTimeoutIsRefused() {
        SQLiteConfig config = recipe();
        config.setBusyTimeout(0);
        assertRefused(dataSource(file(), config), "dataSource", "busy_timeout");
    }

    @Test
    void aFileNotInWalModeIsRefused() {
        SQLiteConfig config = recipe();
        config.setJournalMode(SQLiteConfig.JournalMode.DELETE);
        assertRefused(dataSource(file(), config), "dataSource", "journal_mode=WAL");
    }

    /**
     * A pool that hands connections out with auto-commit off: sqlite-jdbc begins a transaction as
     * soon as auto-commit goes off, and the next one at every commit() and rollback(), IMMEDIATE,
     * so each such connection holds the one write lock while it idles in the pool.
     */
    @Test
    void aPoolHandingOutConnectionsOutOfAutoCommitIsRefused() {
        HikariConfig config = new HikariConfig();
        config.setDataSource(dataSource(file(), recipe()));
        config.setAutoCommit(false);
        config.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            assertThatThrownBy(() -> Skipjack.builder(pool).build())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("auto-commit")
                    .hasMessageContaining("autoCommit=true")
                    .satisfies(e -> assertThat(((InvalidConfigurationException) e).option()).isEqualTo("dataSource"));
        }
    }

    @Test
    void inMemoryDatabasesEachConnectionSeesAloneAreRefused() {
        assertRefused(dataSource("jdbc:sqlite::memory:", recipe()), "dataSource", "vfs=memdb");
        assertRefused(dataSource("jdbc:sqlite:file:skipjack-private?vfs=memdb", recipe()), "dataSource", "vfs=memdb");
        assertRefused(dataSource("jdbc:sqlite:file:skipjack-shared?mode=memory&cache=shared", recipe()), "dataSource",
                "vfs=memdb");
    }

    @Test
    void aSchemaThatIsNotADatabaseOfTheConnectionIsRefused() {
        assertThatThrownBy(() -> Skipjack.builder(dataSource(file(), recipe())).schema("jobs").build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("no database named 'jobs'")
                .satisfies(e -> assertThat(((InvalidConfigurationException) e).option()).isEqualTo("schema"));
    }

    @Test
    void twoPhaseKindsAreRefusedAtBuild() {
        assertThatThrownBy(() -> Skipjack.builder(dataSource(file(), recipe()))
                .twoPhaseHandler(JobKind.of("payment", String.class), DetectionTest.noOpTwoPhaseHandler())
                .build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("[payment]")
                .hasMessageContaining("not on SQLite");
    }

    private static void assertRefused(SQLiteDataSource ds, String option, String naming) {
        assertThatThrownBy(() -> Skipjack.builder(ds).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(naming)
                .satisfies(e -> assertThat(((InvalidConfigurationException) e).option()).isEqualTo(option));
    }
}
