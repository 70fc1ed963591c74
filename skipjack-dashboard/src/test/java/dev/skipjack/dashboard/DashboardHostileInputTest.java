package dev.skipjack.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's HTTP surface under hostile input (issue 14, item 6), without a browser: every
 * malformed or oversized parameter is answered 400 (or the server's 414/431) naming what was wrong,
 * never a 500 and never a change; wrong, missing, malformed and foreign credentials and tokens are
 * refused, and nothing changes in the database. The server keeps answering afterwards. Script in
 * job content is covered in the browser ({@code DashboardBrowserTest}), where it would run.
 */
class DashboardHostileInputTest {

    private static final String USER = "ops";
    private static final String PASSWORD = "correct-horse-battery";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private static TestPostgres postgres;
    private static HikariDataSource dataSource;

    private final HttpClient http = HttpClient.newHttpClient();
    private String schema;
    private Skipjack skipjack;
    private SkipjackDashboard dashboard;
    private long jobId;

    record Args(String note) {
    }

    @BeforeAll
    static void startDatabase() {
        postgres = TestPostgres.start(4);
        dataSource = postgres.dataSource();
    }

    @AfterAll
    static void stopDatabase() {
        postgres.close();
    }

    @BeforeEach
    void dashboardWithOneJob() {
        schema = "hostile_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        skipjack = Skipjack.builder(dataSource).schema(schema).kind(JobKind.of("send-email", Args.class)).build();
        skipjack.migrate();
        jobId = skipjack.enqueue("send-email", new Args("hello"), EnqueueOptions.defaults().withQueue("mail"));
        dashboard = SkipjackDashboard.builder(skipjack.admin()).port(0).basicAuth(USER, PASSWORD).build().start();
    }

    @AfterEach
    void close() {
        dashboard.close();
        skipjack.close();
    }

    @Test
    void malformedQueryParametersAreRefusedNamingTheParameter() throws Exception {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("api/jobs?limit=abc", "limit");
        cases.put("api/jobs?limit=0", "limit");
        cases.put("api/jobs?limit=99999999999999999999", "limit");
        cases.put("api/jobs?limit=-1", "limit");
        cases.put("api/jobs?limit=10001", "limit");
        cases.put("api/jobs?after=x", "after");
        cases.put("api/jobs?after=-5", "cursor");
        cases.put("api/jobs?state=bogus", "state");
        cases.put("api/jobs?state=available,,completed", "state");
        cases.put("api/jobs?args=" + encode("{not json"), "args filter");
        cases.put("api/jobs?args=42", "args filter");
        cases.put("api/jobs?queue=" + encode("Not A Queue!"), "queue");
        cases.put("api/jobs/abc", "id");
        cases.put("api/jobs/" + encode("1 OR 1=1"), "id");
        cases.put("api/jobs/-3", "id");
        cases.put("api/workflows/1e9", "id");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            HttpResponse<String> r = get(c.getKey());
            assertThat(r.statusCode()).as(c.getKey()).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).as(c.getKey()).hasValueSatisfying(
                    t -> assertThat(t).startsWith("application/json"));
            assertThat(JSON.readTree(r.body()).path("error").asText()).as(c.getKey()).containsIgnoringCase(c.getValue());
        }
        // Still serving, and the data untouched.
        assertThat(get("api/jobs?limit=5").statusCode()).isEqualTo(200);
        assertThat(count("SELECT count(*) FROM " + schema + ".skipjack_jobs WHERE state = 'available'")).isEqualTo(1);
    }

    @Test
    void aRefusedValueIsEchoedShortened() throws Exception {
        String longValue = "x".repeat(3000);
        HttpResponse<String> r = get("api/jobs?limit=" + longValue);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).path("error").asText()).contains("limit").hasSizeLessThan(300);
    }

    @Test
    void oversizedRequestsAreRefusedAndTheServerKeepsAnswering() throws Exception {
        // Sizes that fit in a loopback socket's buffers: the client has sent all of it when the
        // server refuses, so the refusal is read, not a reset mid-write.
        String huge = "{\"note\": \"" + "a".repeat(100_000) + "\"}";
        HttpResponse<String> r = get("api/jobs?args=" + encode(huge));
        assertThat(r.statusCode()).as("a 100 KB query string").isIn(400, 413, 414, 431);

        HttpResponse<String> headers = http.send(authorized("api/overview").header("X-Padding", "p".repeat(32 * 1024)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(headers.statusCode()).as("a 32 KB header").isIn(400, 413, 431);

        assertThat(get("api/overview").statusCode()).isEqualTo(200);
        JsonNode job = JSON.readTree(get("api/jobs/" + jobId).body());
        assertThat(job.path("id").asLong()).isEqualTo(jobId);
    }

    @Test
    void unknownActionsAndBadQueueNamesChangeNothing() throws Exception {
        String token = csrfToken();
        HttpResponse<String> unknown = send(post("api/jobs/" + jobId + "/explode").header(RequestGuard.CSRF_HEADER, token));
        assertThat(unknown.statusCode()).isEqualTo(404);
        HttpResponse<String> badId = send(post("api/jobs/" + encode("1;DROP TABLE x") + "/cancel").header(RequestGuard.CSRF_HEADER, token));
        assertThat(badId.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(badId.body()).path("error").asText()).contains("id");
        HttpResponse<String> badQueue = send(post("api/queues/" + encode("Mail; --") + "/pause").header(RequestGuard.CSRF_HEADER, token));
        assertThat(badQueue.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(badQueue.body()).path("error").asText()).containsIgnoringCase("queue");
        assertThat(count("SELECT count(*) FROM " + schema + ".skipjack_jobs WHERE id = " + jobId + " AND state = 'available'")).isEqualTo(1);
    }

    @Test
    void wrongMissingAndMalformedCredentialsAreRefused() throws Exception {
        for (String authorization : new String[] {
                basic(USER, "wrong"), basic("someone", PASSWORD), basic(USER, ""), basic("", ""),
                "Basic !!!not-base64!!!", "Basic " + Base64.getEncoder().encodeToString("no-colon".getBytes(StandardCharsets.UTF_8)),
                "Bearer " + PASSWORD, "Basic", basic(USER, PASSWORD + "\u0000")}) {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/overview"))
                    .header("Authorization", authorization));
            assertThat(r.statusCode()).as(authorization).isEqualTo(401);
        }
        assertThat(send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/session"))).statusCode()).isEqualTo(401);
    }

    @Test
    void postsWithoutTheRightTokenOrFromAnotherSiteChangeNothing() throws Exception {
        String token = csrfToken();
        String cancel = "api/jobs/" + jobId + "/cancel";
        try (SkipjackDashboard other = SkipjackDashboard.builder(skipjack.admin()).port(0).basicAuth(USER, PASSWORD).build().start()) {
            String foreignToken = JSON.readTree(send(HttpRequest.newBuilder(URI.create(other.url() + "api/session"))
                    .header("Authorization", basic(USER, PASSWORD))).body()).path("csrfToken").asText();
            assertThat(foreignToken).isNotEmpty().isNotEqualTo(token);
            Map<String, HttpRequest.Builder> refused = new LinkedHashMap<>();
            refused.put("no token", post(cancel));
            refused.put("wrong token", post(cancel).header(RequestGuard.CSRF_HEADER, "0".repeat(token.length())));
            refused.put("another dashboard's token", post(cancel).header(RequestGuard.CSRF_HEADER, foreignToken));
            refused.put("token prefix", post(cancel).header(RequestGuard.CSRF_HEADER, token.substring(0, token.length() - 1)));
            refused.put("empty token", post(cancel).header(RequestGuard.CSRF_HEADER, ""));
            refused.put("foreign Origin", post(cancel).header(RequestGuard.CSRF_HEADER, token).header("Origin", "http://evil.example"));
            refused.put("malformed Origin", post(cancel).header(RequestGuard.CSRF_HEADER, token).header("Origin", "http://[::bad"));
            refused.put("cross-site fetch", post(cancel).header(RequestGuard.CSRF_HEADER, token).header("Sec-Fetch-Site", "cross-site"));
            for (Map.Entry<String, HttpRequest.Builder> c : refused.entrySet()) {
                assertThat(send(c.getValue()).statusCode()).as(c.getKey()).isEqualTo(403);
                assertThat(count("SELECT count(*) FROM " + schema + ".skipjack_jobs WHERE id = " + jobId + " AND state = 'available'"))
                        .as(c.getKey()).isEqualTo(1);
            }
        }
        // The control: the page's own token from its own origin is accepted.
        HttpResponse<String> ok = send(post(cancel).header(RequestGuard.CSRF_HEADER, token));
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(count("SELECT count(*) FROM " + schema + ".skipjack_jobs WHERE id = " + jobId + " AND state = 'cancelled'")).isEqualTo(1);
    }

    @Test
    void withoutAuthenticationOnlyLoopbackHostNamesAreServed() throws Exception {
        try (SkipjackDashboard open = SkipjackDashboard.builder(skipjack.admin()).port(0).build().start()) {
            assertThat(open.authenticationRequired()).isFalse();
            // A DNS-rebinding page reaches the port under its own name: refused.
            // (java.net.http will not send another Host, so this request is written by hand.)
            assertThat(statusLine(open.port(), "attacker.example:" + open.port())).contains(" 403 ");
            assertThat(statusLine(open.port(), "127.0.0.1:" + open.port())).contains(" 200 ");
            assertThat(http.send(HttpRequest.newBuilder(URI.create(open.url() + "api/overview")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
    }

    /** The status line of a GET of /api/overview sent on a plain socket with the given Host header. */
    private static String statusLine(int port, String host) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /api/overview HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send(authorized(path));
    }

    private HttpRequest.Builder authorized(String path) {
        return HttpRequest.newBuilder(URI.create(dashboard.url() + path)).header("Authorization", basic(USER, PASSWORD));
    }

    private HttpRequest.Builder post(String path) {
        return authorized(path).POST(HttpRequest.BodyPublishers.noBody());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String csrfToken() throws Exception {
        return JSON.readTree(get("api/session").body()).path("csrfToken").asText();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static long count(String query) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
