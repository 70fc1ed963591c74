package dev.skipjack.examples.signup;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees over HTTP: {@code /actuator/health} has Skipjack's component with its
 * details, and after jobs ran {@code /actuator/prometheus} has Skipjack's meters
 * (docs/metrics.md).
 */
class ActuatorTest extends SignupApplicationTestSupport {

    @Test
    void healthShowsSkipjacksIndicatorWithItsDetails() throws Exception {
        HttpResponse<String> response = get("/actuator/health");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode skipjack = json(response.body()).path("components").path("skipjack");
        assertThat(skipjack.path("status").asText()).as(response.body()).isEqualTo("UP");
        JsonNode details = skipjack.path("details");
        assertThat(details.path("database").asText()).isEqualTo("reachable");
        assertThat(details.path("workers").asText()).isEqualTo("running");
        assertThat(details.path("workerId").asText()).isEqualTo(this.skipjack.workerId());
        assertThat(details.path("queues").path("default").path("servedHere").asBoolean()).as(response.body()).isTrue();
    }

    @Test
    void prometheusShowsSkipjacksMetersAfterASignUpOverHttp() throws Exception {
        HttpResponse<String> signup = postJson("/signups", "{\"email\": \"eve@example.com\"}");
        assertThat(signup.statusCode()).as(signup.body()).isEqualTo(201);
        assertJobCompletes(json(signup.body()).path("welcomeEmailJobId").asLong());

        String scrape = get("/actuator/prometheus").body();

        String welcome = "{kind=\"welcome-email\",queue=\"default\"}";
        assertThat(meter(scrape, "skipjack_jobs_enqueued_total" + welcome)).isGreaterThanOrEqualTo(1);
        assertThat(meter(scrape, "skipjack_jobs_completed_total" + welcome)).isGreaterThanOrEqualTo(1);
        assertThat(meter(scrape, "skipjack_job_execution_seconds_count" + welcome)).isGreaterThanOrEqualTo(1);
        assertThat(meter(scrape, "skipjack_job_queue_wait_seconds_count" + welcome)).isGreaterThanOrEqualTo(1);
        assertThat(meter(scrape, "skipjack_queue_depth_jobs{queue=\"default\",state=\"available\"}")).isGreaterThanOrEqualTo(0);
        assertThat(scrape).contains("skipjack_lease_rescues_jobs_total");
    }

    /** The value of one sample line of a Prometheus scrape; fails naming it when it is absent. */
    private static double meter(String scrape, String sample) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as("%s in the scrape:%n%s", sample, scrape).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
