package dev.skipjack.spring;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.TransactionalJobHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration in a real Spring context on a real PostgreSQL: properties reach the
 * client, handler beans run jobs, a handler bean without a kind or a bad property stops the
 * context naming it, producer-only mode, the health indicator, and stopping with the context.
 */
class SkipjackAutoConfigurationTest {

    record SendEmail(String to) {
    }

    record Transfer(long from, long to, long cents) {
    }

    static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);
    static final JobKind<Transfer> TRANSFER = JobKind.of("transfer", Transfer.class);
    static final JobKind<List<SendEmail>> SEND_EMAILS = JobKind.of("send-emails",
            new com.fasterxml.jackson.core.type.TypeReference<List<SendEmail>>() {
            });

    /** A handler bean declared by its class, recording what it ran. */
    @HandlesKind("send-email")
    static class SendEmailHandler implements JobHandler<SendEmail> {
        final Queue<String> sentTo = new ConcurrentLinkedQueue<>();

        @Override
        public Outcome handle(Job<SendEmail> job) {
            sentTo.add(job.args().to());
            return Outcome.complete();
        }
    }

    /** Handler beans declared by @Bean methods: a transactional lambda and a generic args type. */
    @Configuration(proxyBeanMethods = false)
    static class HandlerMethods {
        final Queue<Transfer> transfers = new ConcurrentLinkedQueue<>();
        final Queue<Integer> batchSizes = new ConcurrentLinkedQueue<>();

        @Bean
        @HandlesKind("transfer")
        TransactionalJobHandler<Transfer> transferHandler() {
            return (job, tx) -> {
                // The handler's connection is the job's transaction: it can read the claimed row.
                assertThat(tx.getAutoCommit()).isFalse();
                transfers.add(job.args());
                return Outcome.complete();
            };
        }

        @Bean
        @HandlesKind("send-emails")
        JobHandler<List<SendEmail>> sendEmailsHandler() {
            return job -> {
                batchSizes.add(job.args().size());
                return Outcome.complete();
            };
        }
    }

    /** A handler bean that injects the template, to enqueue a follow-up job: no dependency cycle. */
    @HandlesKind("sign-up")
    static class SignUpHandler implements JobHandler<SendEmail> {
        private final SkipjackTemplate skipjack;

        SignUpHandler(SkipjackTemplate skipjack) {
            this.skipjack = skipjack;
        }

        @Override
        public Outcome handle(Job<SendEmail> job) {
            skipjack.enqueue(SEND_EMAIL, new SendEmail("welcome+" + job.args().to()));
            return Outcome.complete();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlerWithoutKind {
        @Bean
        JobHandler<SendEmail> anonymousHandler() {
            return job -> Outcome.complete();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlerWithRawType {
        @Bean
        @HandlesKind("raw")
        @SuppressWarnings("rawtypes")
        JobHandler rawHandler() {
            return job -> Outcome.complete();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoHandlersOfOneKind {
        @Bean
        @HandlesKind("send-email")
        JobHandler<SendEmail> firstHandler() {
            return job -> Outcome.complete();
        }

        @Bean
        @HandlesKind("send-email")
        JobHandler<SendEmail> secondHandler() {
            return job -> Outcome.complete();
        }
    }

    @HandlesKind("send-email")
    static class BothModesHandler implements JobHandler<SendEmail>, TransactionalJobHandler<SendEmail> {
        @Override
        public Outcome handle(Job<SendEmail> job) {
            return Outcome.complete();
        }

        @Override
        public Outcome handle(Job<SendEmail> job, java.sql.Connection tx) {
            return Outcome.complete();
        }
    }

    /** Holds its job until released. */
    @Configuration(proxyBeanMethods = false)
    static class SlowHandler {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Bean
        @HandlesKind("slow")
        JobHandler<SendEmail> slowHandler() {
            return job -> {
                started.countDown();
                assertThat(release.await(30, TimeUnit.SECONDS)).as("released").isTrue();
                return Outcome.complete();
            };
        }

    }

    private final String schema = TestPostgres.freshSchema();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    SkipjackAutoConfiguration.class, SkipjackHealthAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + TestPostgres.jdbcUrl(),
                    "spring.datasource.hikari.maximum-pool-size=20",
                    "skipjack.schema=" + schema,
                    "skipjack.poll-interval=50ms",
                    "skipjack.promote-interval=50ms",
                    "skipjack.shutdown-timeout=10s");

    @Test
    void propertiesReachTheClient() {
        runner.withBean(SendEmailHandler.class)
                .withPropertyValues("skipjack.queues.default=4", "skipjack.queues.mail=2",
                        "skipjack.table-prefix=app_", "skipjack.lease=20s", "skipjack.worker-id=node-a",
                        "skipjack.retention.discarded=3d", "skipjack.listen-notify=false",
                        "skipjack.kinds.send-email.max-attempts=3", "skipjack.kinds.send-email.timeout=30s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SkipjackProperties properties = context.getBean(SkipjackProperties.class);
                    assertThat(properties.getQueues()).containsExactly(Map.entry("default", 4), Map.entry("mail", 2));
                    assertThat(properties.getLease()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(properties.getRetention().getDiscarded()).isEqualTo(Duration.ofDays(3));
                    assertThat(properties.getKinds().get("send-email").getTimeout()).isEqualTo(Duration.ofSeconds(30));

                    Skipjack skipjack = context.getBean(Skipjack.class);
                    // Schema and prefix: the client's tables are where the properties said, migrated at start.
                    assertThat(skipjack.jobsTable()).isEqualTo("\"" + schema + "\".\"app_jobs\"");
                    assertThat(skipjack.workerId()).isEqualTo("node-a");
                    assertThat(skipjack.kinds()).containsExactly("send-email");
                    // The kind's options: a job enqueued without its own max attempts gets the property's.
                    long id = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.com"));
                    assertThat(skipjack.find(id).orElseThrow().maxAttempts()).isEqualTo(3);
                    // Both queues are served by this node.
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(skipjack.admin().nodes()).anySatisfy(node -> {
                                assertThat(node.workerId()).isEqualTo("node-a");
                                assertThat(node.queueNames()).containsExactlyInAnyOrder("default", "mail");
                            }));
                });
    }

    @Test
    void handlerBeansRunTheirKinds() {
        runner.withBean(SendEmailHandler.class)
                .withUserConfiguration(HandlerMethods.class)
                .withPropertyValues("skipjack.queues.default=4")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Skipjack skipjack = context.getBean(Skipjack.class);
                    assertThat(skipjack.kinds()).containsExactlyInAnyOrder("send-email", "transfer", "send-emails");
                    long email = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.com"));
                    long transfer = skipjack.enqueue(TRANSFER, new Transfer(1, 2, 500));
                    long emails = skipjack.enqueue(SEND_EMAILS, List.of(new SendEmail("a@x"), new SendEmail("b@x")));
                    // By name too: the kinds are registered on the client.
                    long byName = skipjack.enqueue("send-email", new SendEmail("grace@example.com"));

                    for (long id : List.of(email, transfer, emails, byName)) {
                        awaitState(skipjack, id, JobState.COMPLETED);
                    }
                    assertThat(context.getBean(SendEmailHandler.class).sentTo)
                            .containsExactlyInAnyOrder("ada@example.com", "grace@example.com");
                    HandlerMethods methods = context.getBean(HandlerMethods.class);
                    assertThat(methods.transfers).containsExactly(new Transfer(1, 2, 500));
                    assertThat(methods.batchSizes).containsExactly(2);
                });
    }

    @Test
    void aHandlerBeanMayInjectTheTemplateAndEnqueueFollowUps() {
        runner.withBean(SendEmailHandler.class)
                .withBean(SignUpHandler.class)
                .withPropertyValues("skipjack.queues.default=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(Skipjack.class).enqueue(JobKind.of("sign-up", SendEmail.class), new SendEmail("ada@example.com"));
                    await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                            assertThat(context.getBean(SendEmailHandler.class).sentTo).containsExactly("welcome+ada@example.com"));
                });
    }

    @Test
    void customizersChangeTheBuilderAfterThePropertiesAndHandlers() {
        runner.withBean(SendEmailHandler.class)
                // The only queue comes from a customizer: the workers start and run it.
                .withBean("mailQueue", SkipjackBuilderCustomizer.class, () -> builder -> builder.queue("mail", 2))
                .withBean("otherKind", SkipjackBuilderCustomizer.class, () -> builder -> builder.kind(TRANSFER))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Skipjack skipjack = context.getBean(Skipjack.class);
                    assertThat(skipjack.kinds()).containsExactlyInAnyOrder("send-email", "transfer");
                    assertThat(context.getBean(SkipjackWorkers.class).isRunning()).isTrue();
                    long id = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.com"),
                            dev.skipjack.EnqueueOptions.defaults().withQueue("mail"));
                    awaitState(skipjack, id, JobState.COMPLETED);
                });
    }

    @Test
    void aHandlerBeanWithoutAKindStopsTheContextNamingTheBean() {
        runner.withUserConfiguration(HandlerWithoutKind.class)
                .withPropertyValues("skipjack.queues.default=1")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("handler bean 'anonymousHandler' (@Bean method "
                                + HandlerWithoutKind.class.getName() + ".anonymousHandler())")
                        .hasMessageContaining("@HandlesKind"));
    }

    @Test
    void aHandlerBeanWithoutAnArgsTypeStopsTheContextNamingTheBean() {
        runner.withUserConfiguration(HandlerWithRawType.class)
                .withPropertyValues("skipjack.queues.default=1")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("handler bean 'rawHandler'")
                        .hasMessageContaining("declares no concrete args type"));
    }

    @Test
    void twoHandlerBeansOfOneKindStopTheContextNamingBoth() {
        runner.withUserConfiguration(TwoHandlersOfOneKind.class)
                .withPropertyValues("skipjack.queues.default=1")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("'secondHandler'")
                        .hasMessageContaining("'firstHandler'")
                        .hasMessageContaining("kind 'send-email'"));
    }

    @Test
    void aHandlerBeanOfBothModesStopsTheContextNamingTheBean() {
        runner.withBean("bothModes", BothModesHandler.class)
                .withPropertyValues("skipjack.queues.default=1")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("handler bean 'bothModes' (" + BothModesHandler.class.getName() + ")")
                        .hasMessageContaining("implements both JobHandler and TransactionalJobHandler"));
    }

    @Test
    void handlerBeansWithoutAQueueStopTheContext() {
        runner.withBean(SendEmailHandler.class)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("no queue is configured")
                        .hasMessageContaining("skipjack.queues.<name>=<concurrency>"));
    }

    @Test
    void aBadPropertyStopsTheContextNamingTheProperty() {
        runner.withPropertyValues("skipjack.lease=100ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("skipjack.lease")
                        .hasMessageContaining("lease must be at least"));
        runner.withPropertyValues("skipjack.queues.default=0")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("skipjack.queues.default")
                        .hasMessageContaining("between 1 and 10000"));
        runner.withBean(SendEmailHandler.class)
                .withPropertyValues("skipjack.queues.default=1", "skipjack.kinds.send-emial.timeout=5s")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("skipjack.kinds.send-emial")
                        .hasMessageContaining("no handler bean has @HandlesKind(\"send-emial\")"));
    }

    /**
     * Each property reaches its own builder method: a value that method refuses fails the context
     * with the core's message for that option (a property wired to the wrong method would carry
     * another option's message, or none).
     */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "skipjack.schema              | Bad-Schema | invalid schema",
            "skipjack.table-prefix        | 1x_        | invalid table prefix '1x_'",
            "skipjack.queues.default      | 0          | concurrency of queue 'default' must be between 1 and 10000",
            "skipjack.queues[bad name]    | 1          | queue",
            "skipjack.poll-interval       | 1ms        | pollInterval must be at least",
            "skipjack.lease               | 999ms      | lease must be at least",
            "skipjack.shutdown-timeout    | -1s        | shutdownTimeout must be at least",
            "skipjack.rescue-interval     | 1ms        | rescueInterval must be at least",
            "skipjack.promote-interval    | 1ms        | promoteInterval must be at least",
            "skipjack.prune-interval      | 1ms        | pruneInterval must be at least",
            "skipjack.cron-interval       | 1ms        | cronInterval must be at least",
            "skipjack.unserved-queue-threshold | 1ms   | unservedQueueThreshold must be at least",
            "skipjack.worker-id           | ' '        | workerId must be 1-200 printable characters",
            "skipjack.max-args-bytes      | 1          | maxArgsBytes must be between",
            "skipjack.retention.completed | -1s        | retention of COMPLETED jobs",
            "skipjack.retention.cancelled | -1s        | retention of CANCELLED jobs",
            "skipjack.retention.discarded | -1s        | retention of DISCARDED jobs",
            "skipjack.kinds.send-email.timeout | 0ms   | timeout must be at least 1 ms",
            "skipjack.kinds.send-email.max-attempts | 0 | maxAttempts must be between"})
    void eachPropertyReachesItsBuilderMethod(String property, String value, String coreMessage) {
        runner.withBean(SendEmailHandler.class)
                .withPropertyValues("skipjack.queues.fallback=1", property + "=" + value)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        // A map key in brackets is named with a dot: skipjack.queues.bad name.
                        .hasMessageContaining("Property " + property.replace("[", ".").replace("]", ""))
                        .hasMessageContaining(coreMessage));
    }

    @Test
    void producerOnlyEnqueuesAndRunsNothing() {
        runner.withBean(SendEmailHandler.class)
                .withPropertyValues("skipjack.queues.default=4", "skipjack.worker-enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SkipjackWorkers workers = context.getBean(SkipjackWorkers.class);
                    assertThat(workers.isEnabled()).isFalse();
                    assertThat(workers.isRunning()).isFalse();
                    Skipjack skipjack = context.getBean(Skipjack.class);
                    long id = skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.com"));
                    assertThat(skipjack.find(id).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
                    // No node runs here: the database lists none, so nothing claims the job.
                    assertThat(skipjack.admin().nodes()).isEmpty();

                    Health health = context.getBean("skipjackHealthIndicator", HealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("workers", "disabled (enqueue only)");
                });
        // Without any queue and without handlers it is a producer too, and starts.
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            SkipjackWorkers workers = context.getBean(SkipjackWorkers.class);
            assertThat(workers.isEnabled()).isFalse();
            assertThat(workers.isRunning()).isFalse();
            assertThat(context.getBean("skipjackHealthIndicator", HealthIndicator.class).health().getStatus())
                    .isEqualTo(Status.UP);
        });
    }

    @Test
    void disabledConfiguresNothing() {
        runner.withPropertyValues("skipjack.enabled=false")
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(Skipjack.class)
                        .doesNotHaveBean(SkipjackTemplate.class)
                        .doesNotHaveBean(SkipjackWorkers.class)
                        .doesNotHaveBean("skipjackHealthIndicator"));
    }

    @Test
    void healthIsUpWithDetailsWhileWorkersRun() {
        runner.withBean(SendEmailHandler.class)
                .withPropertyValues("skipjack.queues.default=4", "skipjack.worker-id=health-node")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Skipjack skipjack = context.getBean(Skipjack.class);
                    // A job nobody runs, in a queue nobody serves: counted, and shown unserved.
                    skipjack.enqueue(SEND_EMAIL, new SendEmail("x@example.com"),
                            dev.skipjack.EnqueueOptions.defaults().withQueue("elsewhere"));
                    HealthIndicator indicator = context.getBean("skipjackHealthIndicator", HealthIndicator.class);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        Health health = indicator.health();
                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails())
                                .containsEntry("database", "reachable")
                                .containsEntry("workers", "running")
                                .containsEntry("workerId", "health-node");
                        @SuppressWarnings("unchecked")
                        Map<String, Map<String, Object>> queues = (Map<String, Map<String, Object>>) health.getDetails().get("queues");
                        assertThat(queues.get("default")).containsEntry("servedHere", true).containsEntry("servedByNodes", 1);
                        assertThat(queues.get("elsewhere")).containsEntry("available", 1L)
                                .containsEntry("servedHere", false).containsEntry("servedByNodes", 0);
                        assertThat((Double) queues.get("elsewhere").get("oldestAvailableSeconds"))
                                .as("the unserved job's wait, on the database clock").isBetween(0.0, 30.0);
                        assertThat(queues.get("default")).containsEntry("oldestAvailableSeconds", 0.0);
                    });

                    // Workers stopped while the context runs: DOWN, saying so.
                    context.getBean(SkipjackWorkers.class).stop();
                    Health stopped = indicator.health();
                    assertThat(stopped.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(stopped.getDetails()).containsEntry("workers", "stopped");
                });
    }

    @Test
    void healthIsDownWhenTheDatabaseDoesNotAnswer() {
        runner.withPropertyValues("skipjack.queues.default=1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(SkipjackWorkers.class).stop();
                    context.getBean(com.zaxxer.hikari.HikariDataSource.class).close();
                    Health health = context.getBean("skipjackHealthIndicator", HealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails()).containsKey("error");
                });
    }

    @Test
    void noHealthIndicatorWithoutTheActuator() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed()
                        .hasSingleBean(Skipjack.class)
                        .doesNotHaveBean("skipjackHealthIndicator"));
    }

    @Test
    void theHealthIndicatorTurnsOffLikeBootsOwn() {
        runner.withPropertyValues("management.health.skipjack.enabled=false")
                .run(context -> assertThat(context).hasNotFailed()
                        .hasSingleBean(Skipjack.class)
                        .doesNotHaveBean("skipjackHealthIndicator"));
    }

    @Test
    void closingTheContextLetsTheRunningJobFinishAndStopsTheWorkers() {
        runner.withUserConfiguration(SlowHandler.class)
                .withPropertyValues("skipjack.queues.default=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Skipjack skipjack = context.getBean(Skipjack.class);
                    SkipjackWorkers workers = context.getBean(SkipjackWorkers.class);
                    SlowHandler slow = context.getBean(SlowHandler.class);
                    assertThat(workers.isRunning()).isTrue();
                    long id = skipjack.enqueue(JobKind.of("slow", SendEmail.class), new SendEmail("ada@example.com"));
                    assertThat(slow.started.await(10, TimeUnit.SECONDS)).as("job started").isTrue();

                    // Close while the job runs, and release the job only once the closing thread is in
                    // the core's worker stop (or done): the job can end as completed only if that stop
                    // waits for it; a stop that did not would have handed it back and interrupted it.
                    Thread closer = new Thread(context::close, "context-closer");
                    closer.start();
                    await().atMost(Duration.ofSeconds(10)).until(() -> !closer.isAlive()
                            || Arrays.stream(closer.getStackTrace()).anyMatch(frame ->
                            frame.getClassName().endsWith(".WorkerRuntime") && frame.getMethodName().equals("stop")));
                    slow.release.countDown();
                    closer.join(Duration.ofSeconds(30).toMillis());
                    assertThat(closer.isAlive()).as("close finished").isFalse();

                    assertThat(workers.isRunning()).isFalse();
                    // Read back on connections of their own: the context's pool closed with it.
                    assertThat(stateOf(id)).as("the running job finished, not handed back").isEqualTo("completed");
                    assertThat(nodeRows(skipjack.workerId())).as("the stopped node's row").isZero();
                });
    }

    private String stateOf(long id) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestPostgres.jdbcUrl());
             PreparedStatement ps = c.prepareStatement("SELECT state FROM \"" + schema + "\".skipjack_jobs WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private long nodeRows(String workerId) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestPostgres.jdbcUrl());
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM \"" + schema + "\".skipjack_nodes WHERE worker_id = ?")) {
            ps.setString(1, workerId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void awaitState(Skipjack skipjack, long id, JobState state) {
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(skipjack.find(id).map(JobInfo::state)).as("job " + id).contains(state));
    }
}
