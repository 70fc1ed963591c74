package dev.skipjack.spring;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * F-6 through Spring: a job enqueued with {@link SkipjackTemplate} inside a {@code @Transactional}
 * method exists if and only if that transaction commits, together with the method's own rows.
 * A Spring Boot application as users write one: {@code @EnableAutoConfiguration}, so the starter
 * is found through its AutoConfiguration.imports, on the application's own DataSource and
 * transaction manager.
 */
// Closed after the class, while the embedded PostgreSQL runs, not at JVM exit beside its shutdown.
@DirtiesContext
@SpringBootTest(classes = SpringTransactionalEnqueueTest.App.class, properties = {
        "skipjack.queues.default=4",
        "skipjack.poll-interval=50ms",
        "spring.datasource.hikari.maximum-pool-size=20"})
class SpringTransactionalEnqueueTest {

    record Welcome(String user) {
    }

    static final JobKind<Welcome> WELCOME = JobKind.of("welcome", Welcome.class);

    private static final String SCHEMA = TestPostgres.freshSchema();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestPostgres::jdbcUrl);
        registry.add("skipjack.schema", () -> SCHEMA);
    }

    /** An application as users write one, without component scanning (the other tests' beans live in this package). */
    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = HibernateJpaAutoConfiguration.class) // JDBC: JpaTransactionalEnqueueTest has JPA
    static class App {
        @Bean
        WelcomeHandler welcomeHandler() {
            return new WelcomeHandler();
        }

        @Bean
        Registration registration(JdbcTemplate jdbc, SkipjackTemplate skipjack) {
            return new Registration(jdbc, skipjack);
        }
    }

    @HandlesKind("welcome")
    static class WelcomeHandler implements JobHandler<Welcome> {
        final Queue<String> welcomed = new ConcurrentLinkedQueue<>();

        @Override
        public Outcome handle(Job<Welcome> job) {
            welcomed.add(job.args().user());
            return Outcome.complete();
        }
    }

    /** The application's service: a user row and its welcome job in one transaction. */
    static class Registration {
        private final JdbcTemplate jdbc;
        private final SkipjackTemplate skipjack;

        Registration(JdbcTemplate jdbc, SkipjackTemplate skipjack) {
            this.jdbc = jdbc;
            this.skipjack = skipjack;
        }

        @Transactional
        public long register(String user, boolean failAfterEnqueue) {
            jdbc.update("INSERT INTO \"" + SCHEMA + "\".users (name) VALUES (?)", user);
            long jobId = skipjack.enqueue(WELCOME, new Welcome(user));
            if (failAfterEnqueue) {
                throw new IllegalStateException("registration of " + user + " failed after the enqueue");
            }
            return jobId;
        }
    }

    @Autowired
    Registration registration;
    @Autowired
    SkipjackTemplate template;
    @Autowired
    Skipjack skipjack;
    @Autowired
    WelcomeHandler handler;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    TransactionTemplate transactions;
    @Autowired
    PlatformTransactionManager transactionManager;

    private void usersTable() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS \"" + SCHEMA + "\".users (name text PRIMARY KEY)");
    }

    @Test
    void aCommittedTransactionKeepsItsJobAndTheJobRuns() {
        // Boot's JDBC transaction manager, as an application without JPA has.
        assertThat(transactionManager).isInstanceOf(DataSourceTransactionManager.class);
        usersTable();
        long id = registration.register("ada", false);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"" + SCHEMA + "\".users WHERE name = 'ada'", Long.class)).isOne();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(skipjack.find(id).map(JobInfo::state)).contains(JobState.COMPLETED));
        assertThat(handler.welcomed).contains("ada");
    }

    @Test
    void aRolledBackTransactionLeavesNoJob() {
        usersTable();
        assertThatThrownBy(() -> registration.register("grace", true)).hasMessageContaining("failed after the enqueue");

        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"" + SCHEMA + "\".users WHERE name = 'grace'", Long.class)).isZero();
        assertThat(welcomeJobsFor("grace")).isEmpty();
        assertThat(handler.welcomed).doesNotContain("grace");
    }

    @Test
    void theJobIsInvisibleToOthersUntilTheCallerCommits() throws SQLException {
        long id = transactions.execute(status -> {
            assertThat(template.joinsTransaction()).isTrue();
            long jobId = template.enqueue(WELCOME, new Welcome("linus"));
            // Another connection (a worker's) cannot see the job yet: it is in the caller's transaction.
            assertThat(stateSeenElsewhere(jobId)).isEmpty();
            return jobId;
        });
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(skipjack.find(id).map(JobInfo::state)).contains(JobState.COMPLETED));
    }

    @Test
    void aReadOnlyTransactionIsRefusedBeforeAnySqlAndStaysUsable() {
        TransactionTemplate readOnly = new TransactionTemplate(transactionManager);
        readOnly.setReadOnly(true);
        readOnly.setName("reportQuery");
        long jobs = readOnly.execute(status -> {
            assertThatThrownBy(() -> template.enqueue(WELCOME, new Welcome("ken")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot enqueue in a read-only transaction (reportQuery)");
            // The caller's transaction still works: nothing was sent to the database.
            return jdbc.queryForObject("SELECT count(*) FROM \"" + SCHEMA + "\".skipjack_jobs", Long.class);
        });
        assertThat(jobs).isNotNegative();
        assertThat(welcomeJobsFor("ken")).isEmpty();
    }

    @Test
    void outsideATransactionTheJobCommitsAtOnce() throws SQLException {
        assertThat(template.joinsTransaction()).isFalse();
        // Paused, so the state read below is the one the enqueue committed, not a worker's.
        skipjack.admin().pause("held");
        long id = template.enqueue(WELCOME, new Welcome("barbara"),
                dev.skipjack.EnqueueOptions.defaults().withQueue("held"));
        assertThat(stateSeenElsewhere(id)).contains("available");
    }

    private List<JobInfo> welcomeJobsFor(String user) {
        return skipjack.admin().jobs(JobQuery.all().kind("welcome").argsContain("{\"user\": \"" + user + "\"}")).jobs();
    }

    /** The job's state as a connection outside the application's pool sees it. */
    private Optional<String> stateSeenElsewhere(long id) {
        try (Connection c = DriverManager.getConnection(TestPostgres.jdbcUrl());
             PreparedStatement ps = c.prepareStatement("SELECT state FROM \"" + SCHEMA + "\".skipjack_jobs WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
