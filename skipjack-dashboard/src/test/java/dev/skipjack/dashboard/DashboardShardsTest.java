package dev.skipjack.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.ShardedSkipjack;
import dev.skipjack.ShardedSkipjack.ShardJobId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16, item 4: the dashboard over three shards (three real PostgreSQL databases), through
 * its JSON API as the page reads it: the overview sums every shard and breaks the totals down per
 * shard, the job list pages over every shard with each job's shard, a job is addressed as
 * {@code shard:id} and an action on it changes its shard only, a queue pauses on every shard, and
 * a bare id or an unknown shard is refused saying why; and in headless Chromium (as
 * {@code DashboardBrowserTest}), the page shows the per-shard breakdown and each job's shard, and
 * its Cancel button cancels the job on its shard. Expected values are read back from each database
 * with plain SQL.
 */
class DashboardShardsTest {

    private static final String USER = "ops";
    private static final String PASSWORD = "correct-horse-battery";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final JobKind<Args> EMAIL = JobKind.of("send-email", Args.class);

    private static TestPostgres postgres;

    private final HttpClient http = HttpClient.newHttpClient();
    private final Map<String, HikariDataSource> shards = new LinkedHashMap<>();
    private ShardedSkipjack skipjack;
    private SkipjackDashboard dashboard;
    private final List<ShardJobId> jobs = new ArrayList<>();

    record Args(String note) {
    }

    @BeforeAll
    static void startDatabase() {
        postgres = TestPostgres.start(2);
    }

    @AfterAll
    static void stopDatabase() {
        postgres.close();
    }

    @BeforeEach
    void threeShardsWithJobs() {
        ShardedSkipjack.Builder builder = ShardedSkipjack.builder(b -> b.kind(EMAIL));
        for (String name : List.of("s1", "s2", "s3")) {
            HikariDataSource db = postgres.newDatabase("dash_shard_" + ProcessHandle.current().pid() + "_"
                    + DATABASES.incrementAndGet(), 2);
            shards.put(name, db);
            builder.shard(name, db);
        }
        skipjack = builder.build();
        skipjack.migrate();
        // Unkeyed jobs go to the shards in turn: three on each, with the same ids on every shard.
        for (int i = 0; i < 9; i++) {
            jobs.add(skipjack.enqueue(EMAIL, new Args("hello " + i), EnqueueOptions.defaults().withQueue("mail")));
        }
        skipjack.shard("s3").admin().cancel(jobs.get(2).id());
        dashboard = SkipjackDashboard.builder(skipjack.admin()).port(0).basicAuth(USER, PASSWORD).build().start();
    }

    @AfterEach
    void close() {
        dashboard.close();
        skipjack.close();
        shards.values().forEach(HikariDataSource::close);
    }

    @Test
    void theOverviewSumsEveryShardAndBreaksTheTotalsDownPerShard() throws Exception {
        JsonNode session = JSON.readTree(get("api/session").body());
        assertThat(session.path("shards")).extracting(JsonNode::asText).containsExactly("s1", "s2", "s3");

        JsonNode overview = JSON.readTree(get("api/overview").body());

        assertThat(overview.path("totals").path("available").asLong()).isEqualTo(count(null, "state = 'available'")).isEqualTo(8);
        assertThat(overview.path("totals").path("cancelled").asLong()).isEqualTo(1);
        assertThat(overview.path("queues").get(0).path("total").asLong()).isEqualTo(9);
        JsonNode perShard = overview.path("shards");
        assertThat(perShard).hasSize(3);
        for (JsonNode shard : perShard) {
            String name = shard.path("shard").asText();
            assertThat(shard.path("totals").path("available").asLong()).as(name).isEqualTo(count(name, "state = 'available'"));
        }
        assertThat(perShard.get(2).path("totals").path("cancelled").asLong()).isEqualTo(1);
    }

    @Test
    void theJobListPagesOverEveryShardShowingEachJobsShard() throws Exception {
        List<String> listed = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = JSON.readTree(get("api/jobs?limit=4" + (cursor == null ? ""
                    : "&after=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8))).body());
            page.path("jobs").forEach(j -> listed.add(j.path("shard").asText() + ":" + j.path("id").asLong()));
            cursor = page.path("nextCursor").isNull() ? null : page.path("nextCursor").asText();
        } while (cursor != null);

        assertThat(listed).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(jobs.stream().map(ShardJobId::toString).toList());
        JsonNode one = JSON.readTree(get("api/jobs/" + jobs.get(1)).body());
        assertThat(one.path("shard").asText()).isEqualTo("s2");
        assertThat(one.path("args").path("note").asText()).isEqualTo("hello 1");
    }

    @Test
    void anActionOnAJobChangesItsShardOnlyAndAQueuePausesOnEveryShard() throws Exception {
        ShardJobId onS2 = jobs.get(1);
        String token = JSON.readTree(get("api/session").body()).path("csrfToken").asText();

        HttpResponse<String> cancel = send(post("api/jobs/" + onS2 + "/cancel").header(RequestGuard.CSRF_HEADER, token));

        assertThat(cancel.statusCode()).isEqualTo(200);
        assertThat(count("s2", "id = " + onS2.id() + " AND state = 'cancelled'")).isEqualTo(1);
        assertThat(count("s1", "id = " + onS2.id() + " AND state = 'available'")).as("same id on s1 untouched").isEqualTo(1);

        assertThat(send(post("api/queues/mail/pause").header(RequestGuard.CSRF_HEADER, token)).statusCode()).isEqualTo(200);
        for (String shard : shards.keySet()) {
            assertThat(skipjack.shard(shard).admin().pausedQueues()).as(shard).containsKey("mail");
        }
    }

    @Test
    void aBareIdOrAnUnknownShardIsRefusedSayingWhy() throws Exception {
        HttpResponse<String> bare = get("api/jobs/" + jobs.get(0).id());
        assertThat(bare.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(bare.body()).path("error").asText()).contains("unique on its shard only").contains("s1:");

        HttpResponse<String> unknown = get("api/jobs/s9:1");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(unknown.body()).path("error").asText()).contains("no shard named 's9'");

        HttpResponse<String> cursor = get("api/jobs?after=s9:4");
        assertThat(cursor.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(cursor.body()).path("error").asText()).contains("after");
        assertThat(count(null, "state = 'available'")).as("nothing changed").isEqualTo(8);
    }

    @Test
    void thePageShowsEachShardAndActsOnTheJobsOwnShard() throws Exception {
        String chromium = System.getenv().getOrDefault("SKIPJACK_CHROMIUM", "/usr/bin/chromium");
        if (!Files.isExecutable(Paths.get(chromium))) {
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(chromium + " not found");
            }
            Assumptions.abort("browser test skipped: " + chromium + " not found (apt-get install -y chromium)");
        }
        ShardJobId onS2 = jobs.get(1);
        try (Playwright playwright = Playwright.create(new Playwright.CreateOptions()
                .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
             Browser browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                     .setExecutablePath(Paths.get(chromium)).setHeadless(true)
                     .setArgs(List.of("--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu")))) {
            Page page = browser.newContext(new Browser.NewContextOptions().setHttpCredentials(USER, PASSWORD)).newPage();
            page.onDialog(d -> {
                throw new AssertionError("page opened a dialog: " + d.message());
            });
            page.navigate(dashboard.url());
            assertThat(page.locator("[data-testid=total-available] .n")).hasText("8");
            assertThat(page.locator("#shards tr[data-shard=s3] td[data-state=cancelled]")).hasText("1");
            assertThat(page.locator("#shards tr[data-shard=s1] td[data-state=available]")).hasText("3");

            page.navigate(dashboard.url() + "#/jobs");
            assertThat(page.locator("#jobs tbody tr")).hasCount(9);
            assertThat(page.locator("#jobs tbody tr[data-shard=s2]")).hasCount(3);
            page.locator("#jobs tbody tr[data-shard=s2][data-job-id='" + onS2.id() + "'] a").click();
            assertThat(page.locator("h1")).containsText("Job " + onS2);
            assertThat(page.locator("#job-shard")).hasText("s2");

            page.locator("button[data-action=cancel]").click();
            assertThat(page.locator("#job-state")).hasText("cancelled");
        }
        assertThat(count("s2", "id = " + onS2.id() + " AND state = 'cancelled'")).isEqualTo(1);
        assertThat(count("s1", "id = " + onS2.id() + " AND state = 'available'")).as("same id on s1 untouched").isEqualTo(1);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send(authorized(path));
    }

    private HttpRequest.Builder authorized(String path) {
        String auth = Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(URI.create(dashboard.url() + path)).header("Authorization", "Basic " + auth);
    }

    private HttpRequest.Builder post(String path) {
        return authorized(path).POST(HttpRequest.BodyPublishers.noBody());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Jobs matching {@code where} on one shard's database, or summed over all of them (null). */
    private long count(String shard, String where) throws SQLException {
        long total = 0;
        for (Map.Entry<String, HikariDataSource> db : shards.entrySet()) {
            if (shard != null && !shard.equals(db.getKey())) {
                continue;
            }
            try (Connection c = db.getValue().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM skipjack_jobs WHERE " + where)) {
                rs.next();
                total += rs.getLong(1);
            }
        }
        return total;
    }
}
