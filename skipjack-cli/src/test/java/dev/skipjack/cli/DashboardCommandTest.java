package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skipjack dashboard} with no URL: one command gives a newcomer an embedded database, a
 * demo workload with failures, and the dashboard serving it. The browser behaviour itself is
 * tested in skipjack-dashboard's DashboardBrowserTest.
 */
class DashboardCommandTest {

    private static final Pattern URL = Pattern.compile("Dashboard: (http://\\S+)");

    @Test
    void withoutAUrlServesTheDashboardOnARunningDemo() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = SkipjackCli.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] args = System.getenv("SKIPJACK_DATABASE_URL") == null
                ? new String[] {"dashboard", "--port", "0", "--demo-rate", "200", "--stop-after", "60s"}
                : new String[] {"dashboard", "--port", "0", "--stop-after", "60s"};
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread command = new Thread(() -> exit.complete(cl.execute(args)), "dashboard-command");
        command.start();
        try {
            String url = awaitUrl(out, exit);
            HttpClient http = HttpClient.newHttpClient();
            ObjectMapper json = new ObjectMapper();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            JsonNode overview;
            do {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "api/overview")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as("loopback needs no login").isEqualTo(200);
                overview = json.readTree(r.body());
                assertThat(System.nanoTime()).as("demo jobs to complete and fail; output:%n%s", out).isLessThan(deadline);
            } while (overview.get("totals").get("completed").asLong() == 0 || overview.get("totals").get("discarded").asLong() == 0
                    && overview.get("totals").get("retryable").asLong() == 0);
            assertThat(overview.get("queues").findValuesAsText("name")).contains("default", "critical");

            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.body()).contains("<script src=\"/app.js\" defer></script>");
            assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(v -> assertThat(v).contains("script-src 'self'"));
        } finally {
            // Interrupting the wait stops the command the way Ctrl-C does: dashboard, workers and
            // the embedded database are closed by its finally blocks.
            command.interrupt();
            command.join(Duration.ofSeconds(30).toMillis());
        }
        assertThat(command.isAlive()).as("command stopped").isFalse();
    }

    /** The dashboard prints its address once it listens: waits on that line, not on time. */
    static String awaitUrl(StringWriter out, CompletableFuture<Integer> exit) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = URL.matcher(out.toString());
            if (m.find()) {
                return m.group(1);
            }
            if (exit.isDone()) {
                throw new AssertionError("dashboard exited early with " + exit.join() + ":\n" + out);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no dashboard URL within 60 s:\n" + out);
    }
}
