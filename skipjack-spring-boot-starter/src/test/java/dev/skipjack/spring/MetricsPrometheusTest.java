package dev.skipjack.spring;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.JobKind;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application with the actuator and Micrometer's Prometheus registry gets Skipjack's meters
 * without a line of configuration: after a job ran, the scrape Prometheus reads shows it counted,
 * timed and in the queue depth.
 */
// Closed after the class, while the embedded PostgreSQL runs, not at JVM exit beside its shutdown.
@DirtiesContext
// A @SpringBootTest exports metrics only to a simple registry unless asked: the Prometheus one is the point here.
@AutoConfigureObservability(tracing = false)
@SpringBootTest(classes = MetricsPrometheusTest.App.class, properties = {
        "skipjack.queues.default=2",
        "skipjack.poll-interval=50ms"})
class MetricsPrometheusTest {

    record Greeting(String name) {
    }

    static final JobKind<Greeting> GREET = JobKind.of("greet", Greeting.class);

    private static final String SCHEMA = TestPostgres.freshSchema();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestPostgres::jdbcUrl);
        registry.add("skipjack.schema", () -> SCHEMA);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = HibernateJpaAutoConfiguration.class) // JDBC: JpaTransactionalEnqueueTest has JPA
    static class App {
        @Bean
        @HandlesKind("greet")
        JobHandler<Greeting> greetHandler() {
            return (Job<Greeting> job) -> Outcome.complete();
        }
    }

    @Autowired
    Skipjack skipjack;

    @Autowired
    PrometheusMeterRegistry prometheus;

    @Test
    void theScrapeShowsSkipjackMetersAfterAJobRan() {
        skipjack.enqueue(GREET, new Greeting("ada"));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(prometheus.scrape())
                .contains("skipjack_jobs_completed_total{kind=\"greet\",queue=\"default\"} 1.0"));
        String scrape = prometheus.scrape();
        assertThat(scrape)
                .contains("skipjack_jobs_enqueued_total{kind=\"greet\",queue=\"default\"} 1.0")
                .contains("skipjack_jobs_failed_total{kind=\"greet\",queue=\"default\"} 0.0")
                .contains("skipjack_job_execution_seconds_count{kind=\"greet\",queue=\"default\"} 1")
                .contains("skipjack_job_queue_wait_seconds_count{kind=\"greet\",queue=\"default\"} 1")
                .contains("skipjack_claim_batch_size_jobs_sum{queue=\"default\"} 1.0")
                .contains("skipjack_lease_rescues_jobs_total 0.0")
                .contains("skipjack_queue_depth_jobs{queue=\"default\",state=\"available\"}");
    }
}
