package dev.skipjack.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every open page polls the overview every two seconds, and the overview counts every job per
 * queue and state: many pages at once must not mean as many reads of the jobs table. Pages share
 * one overview computed at most once a second; it is never older than that, and an action taken
 * through the dashboard shows at the next poll. Statements are counted on the real connections the
 * admin uses.
 */
class DashboardOverviewSharedTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static final int PAGES = 8;

    private static TestPostgres postgres;

    private final HttpClient http = HttpClient.newHttpClient();
    private final AtomicInteger statements = new AtomicInteger();
    private Skipjack skipjack;
    private SkipjackDashboard dashboard;
    private long jobId;

    record Args(String note) {
    }

    @BeforeAll
    static void startDatabase() {
        postgres = TestPostgres.start(PAGES + 2);
    }

    @AfterAll
    static void stopDatabase() {
        postgres.close();
    }

    @BeforeEach
    void dashboardOnCountedConnections() {
        String schema = "shared_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        skipjack = Skipjack.builder(counted(postgres.dataSource())).schema(schema)
                .kind(JobKind.of("send-email", Args.class)).build();
        skipjack.migrate();
        jobId = skipjack.enqueue("send-email", new Args("hello"), EnqueueOptions.defaults().withQueue("mail"));
        dashboard = SkipjackDashboard.builder(skipjack.admin()).port(0).build().start();
    }

    @AfterEach
    void close() {
        dashboard.close();
        skipjack.close();
    }

    @Test
    void pagesPollingTogetherShareOneOverview() throws Exception {
        int before = statements.get();
        assertThat(overview().path("totals").path("available").asLong()).isEqualTo(1);
        int perOverview = statements.get() - before;
        assertThat(perOverview).as("statements of one overview").isPositive();

        int burst = statements.get();
        ExecutorService pages = Executors.newFixedThreadPool(PAGES);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<JsonNode>> polls = new ArrayList<>();
            for (int i = 0; i < PAGES; i++) {
                polls.add(pages.submit(() -> {
                    go.await();
                    return overview();
                }));
            }
            go.countDown();
            for (Future<JsonNode> poll : polls) {
                assertThat(poll.get().path("totals").path("available").asLong()).isEqualTo(1);
            }
        } finally {
            pages.shutdownNow();
        }
        // The burst falls within one overview's lifetime or crosses into the next, never more.
        assertThat(statements.get() - burst).as(PAGES + " pages at once, in statements")
                .isLessThanOrEqualTo(perOverview);
    }

    @Test
    void theSharedOverviewIsNeverOlderThanASecondOrSo() throws Exception {
        overview();
        skipjack.enqueue("send-email", new Args("later"), EnqueueOptions.defaults().withQueue("mail"));
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long started = System.nanoTime();
        while (overview().path("totals").path("available").asLong() != 2) {
            assertThat(System.nanoTime()).as("the new job never showed").isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .isLessThan(SharedOverview.MAX_AGE.plus(Duration.ofMillis(900)));
    }

    @Test
    void anActionThroughTheDashboardShowsAtTheNextPoll() throws Exception {
        assertThat(overview().path("totals").path("cancelled").asLong()).isZero();
        String token = JSON.readTree(send(request("api/session")).body()).path("csrfToken").asText();

        HttpResponse<String> cancel = send(request("api/jobs/" + jobId + "/cancel")
                .header(RequestGuard.CSRF_HEADER, token).POST(HttpRequest.BodyPublishers.noBody()));

        assertThat(cancel.statusCode()).isEqualTo(200);
        assertThat(overview().path("totals").path("cancelled").asLong()).as("right after, not a second later").isEqualTo(1);
    }

    private JsonNode overview() throws Exception {
        HttpResponse<String> r = send(request("api/overview"));
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(dashboard.url() + path));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The data source, its connections counting the statements prepared and created on them (each call goes on to the database). */
    private DataSource counted(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = forward(method, target, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection c = (Connection) result;
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                            (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") || m.getName().equals("createStatement")
                                        || m.getName().equals("prepareCall")) {
                                    statements.incrementAndGet();
                                }
                                return forward(m, c, a);
                            });
                });
    }

    private static Object forward(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
