package dev.skipjack.spring;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Id;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Table;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * F-6 in a JPA application: Boot's default transaction manager there is a
 * {@link JpaTransactionManager}, and a job enqueued with {@link SkipjackTemplate} inside its
 * {@code @Transactional} method commits or rolls back with the entities the method persisted.
 */
class JpaTransactionalEnqueueTest {

    record Welcome(String member) {
    }

    static final JobKind<Welcome> WELCOME = JobKind.of("welcome", Welcome.class);

    @Entity
    @Table(name = "members")
    static class Member {
        @Id
        String name;

        Member() {
        }

        Member(String name) {
            this.name = name;
        }
    }

    @HandlesKind("welcome")
    static class WelcomeHandler implements JobHandler<Welcome> {
        final Queue<String> welcomed = new ConcurrentLinkedQueue<>();

        @Override
        public Outcome handle(Job<Welcome> job) {
            welcomed.add(job.args().member());
            return Outcome.complete();
        }
    }

    /** The application's service: a member entity and its welcome job in one JPA transaction. */
    static class Membership {
        @PersistenceContext
        EntityManager entities;
        final SkipjackTemplate skipjack;

        Membership(SkipjackTemplate skipjack) {
            this.skipjack = skipjack;
        }

        @Transactional
        public long join(String name, boolean failAfterEnqueue) {
            entities.persist(new Member(name));
            entities.flush(); // the member's INSERT on the transaction's connection, before the job's
            long jobId = skipjack.enqueue(WELCOME, new Welcome(name));
            if (failAfterEnqueue) {
                throw new IllegalStateException("joining of " + name + " failed after the enqueue");
            }
            return jobId;
        }
    }

    /** Entities are found in this package (the application's package, as Boot's would be). */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    static class App {
        @Bean
        WelcomeHandler welcomeHandler() {
            return new WelcomeHandler();
        }

        @Bean
        Membership membership(SkipjackTemplate skipjack) {
            return new Membership(skipjack);
        }
    }

    private final String schema = TestPostgres.freshSchema();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
                    TransactionAutoConfiguration.class, SkipjackAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("spring.datasource.url=" + TestPostgres.jdbcUrl(),
                    "spring.datasource.hikari.maximum-pool-size=20",
                    "spring.jpa.hibernate.ddl-auto=create",
                    // The entities in a schema of their own: ddl-auto=create drops and creates it.
                    "spring.jpa.properties.hibernate.default_schema=" + schema + "_app",
                    "spring.jpa.properties.hibernate.hbm2ddl.create_namespaces=true",
                    "skipjack.schema=" + schema,
                    "skipjack.queues.default=2",
                    "skipjack.poll-interval=50ms");

    @Test
    void aCommittedJpaTransactionKeepsItsJobAndARolledBackOneLeavesNone() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
            Membership membership = context.getBean(Membership.class);
            Skipjack skipjack = context.getBean(Skipjack.class);

            long id = membership.join("ada", false);
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                    assertThat(skipjack.find(id).map(JobInfo::state)).contains(JobState.COMPLETED));
            assertThat(context.getBean(WelcomeHandler.class).welcomed).containsExactly("ada");

            assertThatThrownBy(() -> membership.join("grace", true)).hasMessageContaining("failed after the enqueue");
            assertThat(skipjack.admin().jobs(JobQuery.all().kind("welcome").argsContain("{\"member\": \"grace\"}")).jobs())
                    .isEmpty();
            EntityManager entities = context.getBean(jakarta.persistence.EntityManagerFactory.class).createEntityManager();
            try {
                assertThat(entities.find(Member.class, "ada")).isNotNull();
                assertThat(entities.find(Member.class, "grace")).isNull();
            } finally {
                entities.close();
            }
        });
    }
}
