package dev.skipjack.examples.signup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.JobInfo;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.Skipjack;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The real application on a random port and an embedded PostgreSQL. Every test class extending
 * this one without properties of its own shares one Spring context (the cache key is this
 * configuration), so the suite starts it once.
 *
 * <p>The assertions about jobs are the small helpers below, so that they can move to
 * {@code skipjack-testing}'s helpers without touching the tests.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "signup.embedded-database=true",
        // Jobs are woken by LISTEN/NOTIFY; a short poll only bounds a missed wake-up in a test.
        "skipjack.poll-interval=200ms"})
abstract class SignupApplicationTestSupport {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    // Jackson 2, the core's: resolved beside Boot 4's default Jackson 3.
    private static final ObjectMapper JSON = new ObjectMapper();

    @LocalServerPort
    int port;

    @Autowired
    Skipjack skipjack;

    @Autowired
    JdbcClient jdbc;

    /** Waits until job {@code id} completed; fails with its state and errors after 20 s. */
    void assertJobCompletes(long id) {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(skipjack.admin().job(id))
                .hasValueSatisfying(job -> assertThat(job.state()).as("job %s: %s", id, job).isEqualTo(JobState.COMPLETED)));
    }

    /** The welcome-email jobs enqueued for {@code email}, whatever their state. */
    List<JobInfo> welcomeEmailJobsFor(String email) {
        return skipjack.admin().jobs(JobQuery.all().kind(WelcomeEmail.KIND.name())
                .argsContain("{\"email\": \"" + email + "\"}")).jobs();
    }

    Optional<Map<String, Object>> account(String email) {
        return jdbc.sql("select id, credits, welcomed_at from accounts where email = ?").param(email)
                .query().listOfRows().stream().findFirst();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(String body) throws IOException {
        return JSON.readTree(body);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
