package dev.skipjack.spring;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * In an application with the actuator, Skipjack's health is the component {@code skipjack} of the
 * health endpoint, and it counts toward the application's overall status.
 */
// Closed after the class, while the embedded PostgreSQL runs, not at JVM exit beside its shutdown.
@DirtiesContext
@SpringBootTest(classes = HealthEndpointTest.App.class, properties = {
        "skipjack.queues.default=2",
        "management.endpoint.health.show-details=always"})
class HealthEndpointTest {

    private static final String SCHEMA = TestPostgres.freshSchema();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestPostgres::jdbcUrl);
        registry.add("skipjack.schema", () -> SCHEMA);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = HibernateJpaAutoConfiguration.class) // JDBC: JpaTransactionalEnqueueTest has JPA
    static class App {
    }

    @Autowired
    HealthEndpoint health;

    @Test
    void skipjackIsAComponentOfTheHealthEndpoint() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HealthComponent skipjack = health.healthForPath("skipjack");
            assertThat(skipjack).isNotNull();
            assertThat(skipjack.getStatus()).isEqualTo(Status.UP);
        });
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    }
}
