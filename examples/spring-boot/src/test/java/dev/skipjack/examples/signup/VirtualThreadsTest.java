package dev.skipjack.examples.signup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.test.context.TestPropertySource;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code spring.threads.virtual.enabled=true} (Java 21+: requests on virtual threads), a
 * sign-up over HTTP commits its job, which runs, an unknown referral code rolls it back, and the
 * health is UP. Its own context, so only on Java 21+.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@TestPropertySource(properties = "spring.threads.virtual.enabled=true")
class VirtualThreadsTest extends SignupApplicationTestSupport {

    @Test
    void signUpsOverHttpCommitAndRollBackTheirJobs() throws Exception {
        HttpResponse<String> kept = postJson("/signups", "{\"email\": \"vera@example.com\"}");
        assertThat(kept.statusCode()).as(kept.body()).isEqualTo(201);
        assertJobCompletes(json(kept.body()).path("welcomeEmailJobId").asLong());

        HttpResponse<String> refused = postJson("/signups", "{\"email\": \"val@example.com\", \"referralCode\": \"nope\"}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);
        assertThat(account("val@example.com")).isEmpty();
        assertThat(welcomeEmailJobsFor("val@example.com")).isEmpty();

        HttpResponse<String> health = get("/actuator/health/skipjack");
        assertThat(json(health.body()).path("status").asText()).as(health.body()).isEqualTo("UP");
    }
}
