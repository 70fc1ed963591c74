package dev.skipjack.spring;

import dev.skipjack.JobHandler;
import dev.skipjack.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a user reads when a Skipjack setting stops the application: Boot's "APPLICATION FAILED TO
 * START" report with Skipjack's message and what to change, not a bare stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailureAnalysisTest {

    record Report(String day) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = HibernateJpaAutoConfiguration.class) // JDBC: JpaTransactionalEnqueueTest has JPA
    static class AppWithHandlerWithoutKind {
        @Bean
        JobHandler<Report> reportHandler() {
            return job -> Outcome.complete();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = HibernateJpaAutoConfiguration.class) // JDBC: JpaTransactionalEnqueueTest has JPA
    static class EmptyApp {
    }

    @Test
    void aHandlerBeanWithoutAKindIsReportedWithWhatToDo(CapturedOutput output) {
        assertThatThrownBy(() -> start(AppWithHandlerWithoutKind.class, "--spring.datasource.url=" + TestPostgres.jdbcUrl(),
                "--skipjack.schema=" + TestPostgres.freshSchema(), "--skipjack.queues.default=1"))
                .isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Skipjack could not be configured: handler bean 'reportHandler' (@Bean method "
                        + AppWithHandlerWithoutKind.class.getName() + ".reportHandler())")
                .contains("Action:")
                .contains("Change the handler bean or kind named above");
    }

    @Test
    void aDatabaseSkipjackDoesNotRunOnIsReportedWithWhatToDo(CapturedOutput output) {
        assertThatThrownBy(() -> start(EmptyApp.class, "--spring.datasource.url=jdbc:h2:mem:failure-analysis"))
                .isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Skipjack could not be configured:")
                .contains("H2")
                .contains("or set skipjack.enabled=false where Skipjack is not wanted");
    }

    private static void start(Class<?> application, String... args) {
        new SpringApplicationBuilder(application).web(WebApplicationType.NONE).run(args).close();
    }
}
