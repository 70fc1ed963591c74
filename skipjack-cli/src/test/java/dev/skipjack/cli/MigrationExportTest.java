package dev.skipjack.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;
import dev.skipjack.support.TestBackend;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.DirectoryResourceAccessor;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skipjack migrate --export-dir} writes files the real schema tools apply, one per migration
 * version, and a schema built by them is one Skipjack's own {@code migrate()} recognises: nothing
 * applied twice, and jobs enqueue. Flyway on PostgreSQL and MariaDB, Liquibase on PostgreSQL and
 * MariaDB (its own statement splitting is off, so SQLite's triggers would pass too).
 */
class MigrationExportTest {

    private static final JobKind<Map> KIND = JobKind.of("exported", Map.class);

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    private void export(TestBackend backend, String schema, String format) {
        String dialect = backend == TestBackend.POSTGRESQL ? "postgres" : "mariadb";
        int exit = CliInProcess.execute(out, err, List.of("migrate", "--export-dir", dir.toString(),
                "--format", format, "--dialect", dialect, "--schema", schema));
        assertThat(exit).as("exit code; output:%n%s%n%s", out, err).isZero();
    }

    @Test
    void flywayAppliesOneFilePerVersionOnPostgres() throws Exception {
        flywayApplies(TestBackend.POSTGRESQL);
    }

    @Test
    void flywayAppliesOneFilePerVersionOnMariaDb() throws Exception {
        flywayApplies(TestBackend.MARIADB);
    }

    private void flywayApplies(TestBackend backend) throws Exception {
        String schema = backend.freshSchema("flyway");
        export(backend, schema, "flyway");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted())
                    .startsWith("V001__skipjack_jobs.sql", "V003__skipjack_queues.sql")
                    .allMatch(name -> name.matches("V\\d{3}__skipjack_[a-z_]+\\.sql"));
        }
        try (HikariDataSource ds = backend.newDataSource(4)) {
            // Skipjack's files in a Flyway of their own (own location and history table), beside
            // the application's: their version numbers are Skipjack's, not the application's.
            var result = Flyway.configure().dataSource(ds).locations("filesystem:" + dir)
                    .table("skipjack_flyway_history").defaultSchema(schema).schemas(schema).load().migrate();
            assertThat(result.success).isTrue();
            assertThat(result.migrationsExecuted)
                    .isEqualTo(Skipjack.migrationScripts(backend.backend(), schema, "skipjack_").size());
            assertSkipjackRecognisesTheSchema(backend, ds, schema);
        }
    }

    @Test
    void liquibaseAppliesTheChangelogOnPostgres() throws Exception {
        liquibaseApplies(TestBackend.POSTGRESQL);
    }

    @Test
    void liquibaseAppliesTheChangelogOnMariaDb() throws Exception {
        liquibaseApplies(TestBackend.MARIADB);
    }

    private void liquibaseApplies(TestBackend backend) throws Exception {
        String schema = backend.freshSchema("liquibase");
        export(backend, schema, "liquibase");
        assertThat(dir.resolve("skipjack-changelog.xml")).exists();
        try (HikariDataSource ds = backend.newDataSource(4); Connection c = ds.getConnection()) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
            try (Liquibase liquibase = new Liquibase("skipjack-changelog.xml", new DirectoryResourceAccessor(dir), database)) {
                liquibase.update();
            }
            assertSkipjackRecognisesTheSchema(backend, ds, schema);
        }
    }

    /** Every exported version is recorded, migrate() has nothing to do, and a job enqueues. */
    private static void assertSkipjackRecognisesTheSchema(TestBackend backend, HikariDataSource ds, String schema)
            throws SQLException {
        Skipjack client = Skipjack.builder(ds).schema(schema).kind(KIND).build();
        int versions = client.migrationScripts().size();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT count(*) FROM " + backend.qualified(schema, "skipjack_schema_migrations"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            assertThat(rs.getInt(1)).as("versions recorded in Skipjack's own table").isEqualTo(versions);
        }
        assertThat(client.migrate()).as("migrate() after the tool: nothing left").isEmpty();
        long id = client.enqueue(KIND, Map.of("to", "ada@example.com"));
        assertThat(client.admin().job(id)).isPresent();
    }
}
