package dev.skipjack.dashboard;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.Response;
import com.microsoft.playwright.Route;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.JobKind;
import dev.skipjack.KindOptions;
import dev.skipjack.Skipjack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-26 end to end in headless Chromium (the Debian {@code chromium} package, driven by
 * Playwright): a real dashboard on a real PostgreSQL with jobs that really failed. Expected
 * counts and states are read with plain SQL. Screenshots go to target/screenshots, and to
 * docs/images when SKIPJACK_UPDATE_SCREENSHOTS=1.
 */
class DashboardBrowserTest {

    private static final String USER = "ops";
    private static final String PASSWORD = "correct-horse-battery";
    private static final String CHROMIUM = System.getenv().getOrDefault("SKIPJACK_CHROMIUM", "/usr/bin/chromium");
    private static final String SCRIPT_ARGS = "{\"note\": \"</pre><script>window.__pwned = 1</script>"
            + "<img src=x onerror=\\\"window.__pwned = 2\\\">\"}";
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private static TestPostgres postgres;
    private static HikariDataSource dataSource;
    private static Playwright playwright;
    private static Browser browser;

    private String schema;
    private Skipjack skipjack;
    private SkipjackDashboard dashboard;
    private BrowserContext context;
    private Page page;
    private long failedId;
    private long scriptId;

    record Args(String note) {
    }

    @BeforeAll
    static void startDatabaseAndBrowser() {
        if (!Files.isExecutable(Paths.get(CHROMIUM))) {
            String missing = CHROMIUM + " not found: apt-get install -y chromium chromium-driver (or set SKIPJACK_CHROMIUM)";
            // CI installs Chromium (.ci/run) and must run these tests; a developer's fresh machine
            // with only a JDK and Maven skips them, loudly, instead of failing the whole suite.
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(missing);
            }
            Assumptions.abort("browser tests skipped: " + missing);
        }
        postgres = TestPostgres.start(8);
        dataSource = postgres.dataSource();
        playwright = Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(Paths.get(CHROMIUM))
                .setHeadless(true).setArgs(List.of("--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu")));
    }

    @AfterAll
    static void stopAll() {
        if (browser != null) {
            browser.close();
        }
        if (playwright != null) {
            playwright.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @BeforeEach
    void jobsAndDashboard() {
        schema = "dash_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        // A failing handler produces a real error history with a real stack trace.
        Skipjack worker = Skipjack.builder(dataSource).schema(schema).queue("billing", 2)
                .pollInterval(Duration.ofMillis(50))
                .handler(JobKind.of("charge-card", Args.class), KindOptions.defaults().withMaxAttempts(1), job -> {
                    // What a handler reports (issue 12, item 6), hostile text included: shown as text.
                    job.progress(30, "charging <b>the card</b>");
                    job.log("calling the gateway for " + job.args().note());
                    job.log("<script>window.__pwned = 3</script>");
                    throw new IllegalStateException("card declined: " + job.args().note());
                }).build();
        worker.migrate();
        worker.start();
        failedId = worker.enqueue("charge-card", new Args("order 7"), EnqueueOptions.defaults().withQueue("billing"));
        awaitSql("job " + failedId + " discarded", "SELECT count(*) FROM {{jobs}} WHERE id = " + failedId + " AND state = 'discarded'", 1);
        worker.close();

        skipjack = Skipjack.builder(dataSource).schema(schema).kind(JobKind.of("send-email", Args.class)).build();
        for (int i = 0; i < 5; i++) {
            skipjack.enqueue("send-email", new Args("welcome " + i), EnqueueOptions.defaults().withQueue("mail"));
        }
        scriptId = skipjack.enqueue("send-email", new Args("x"), EnqueueOptions.defaults().withQueue("mail")
                .withTags("import-7").withMetadata(java.util.Map.of("note", "<script>window.__pwned = 2</script>")));
        // Args set with SQL: the hostile text exactly as an attacker would store it.
        sql("UPDATE {{jobs}} SET args = '" + SCRIPT_ARGS.replace("'", "''") + "'::jsonb WHERE id = " + scriptId);
        skipjack.schedule(dev.skipjack.CronSchedule.of("nightly-report", "30 2 * * *", JobKind.of("send-email", Args.class),
                new Args("report")).inZone("Europe/Paris"));
        // Finished jobs over the last hour, for the throughput chart.
        sql("INSERT INTO {{jobs}} (queue, kind, state, attempt, created_at, attempted_at, finished_at)"
                + " SELECT 'mail', 'send-email', CASE WHEN n % 17 = 0 THEN 'discarded' ELSE 'completed' END, 1,"
                + " now() - (n % 60) * interval '1 minute' - interval '2 seconds', now() - (n % 60) * interval '1 minute' - interval '1 second',"
                + " now() - (n % 60) * interval '1 minute' FROM generate_series(1, 900 + 0) AS n WHERE random() < 0.5 + (n % 60) / 120.0");
        dashboard = SkipjackDashboard.builder(skipjack.admin()).port(0).basicAuth(USER, PASSWORD).build().start();
        context = browser.newContext(new Browser.NewContextOptions().setHttpCredentials(USER, PASSWORD).setViewportSize(1280, 860));
        page = context.newPage();
        page.onDialog(d -> {
            throw new AssertionError("page opened a dialog: " + d.message());
        });
    }

    @AfterEach
    void close() {
        context.close();
        dashboard.close();
    }

    @Test
    void overviewLoadsAndShowsTheCountsInTheDatabase() throws Exception {
        page.navigate(dashboard.url());
        for (String state : List.of("available", "completed", "discarded", "running")) {
            long expected = count("SELECT count(*) FROM {{jobs}} WHERE state = '" + state + "'");
            assertThat(page.locator("[data-testid=total-" + state + "] .n")).hasText(String.format("%,d", expected));
        }
        assertThat(page.locator("#queues tr[data-queue=billing]")).containsText("running");
        assertThat(page.locator(".chart rect").first()).isVisible();
        assertThat(page.locator("#schedules tr[data-schedule=nightly-report]")).containsText("30 2 * * *");
        assertThat(page.locator("#schedules tr[data-schedule=nightly-report]")).containsText("Europe/Paris");
        screenshot("dashboard-overview.png");

        // Live: a job enqueued now shows up without a reload.
        long before = count("SELECT count(*) FROM {{jobs}} WHERE state = 'available'");
        skipjack.enqueue("send-email", new Args("late"), EnqueueOptions.defaults().withQueue("mail"));
        assertThat(page.locator("[data-testid=total-available] .n")).hasText(String.format("%,d", before + 1));
    }

    /**
     * The overview's concurrency keys: a customer's limit of 2 with 3 jobs (full, one waiting), whose
     * partition is hostile text shown as text, and a BLOCK sequence whose first job was discarded
     * (blocked, shown first). The figures are the database's, read back with plain SQL.
     */
    @Test
    void overviewShowsConcurrencyKeysWithTheirUsageAndTheBlockedOnes() throws Exception {
        String hostile = "<img src=x onerror=\"window.__pwned = 3\">";
        JobKind<Args> sync = JobKind.of("sync", Args.class).limitedTo(2, Args::note);
        long blocker;
        try (Skipjack producer = Skipjack.builder(dataSource).schema(schema).kind(sync).build()) {
            for (int i = 0; i < 3; i++) {
                producer.enqueue(sync, new Args(hostile));
            }
            EnqueueOptions sequence = EnqueueOptions.defaults().withSequenceKey("order-7", dev.skipjack.SequenceOnDiscard.BLOCK);
            JobKind<Args> step = JobKind.of("step", Args.class);
            blocker = producer.enqueue(step, new Args("first"), sequence);
            producer.enqueue(step, new Args("second"), sequence);
            assertThat(producer.admin().discard(blocker)).isTrue();
        }
        assertThat(count("SELECT count(*) FROM {{jobs}} WHERE concurrency_key = 'kind:sync/" + hostile.replace("'", "''")
                + "' AND state = 'waiting'")).isEqualTo(1);

        page.navigate(dashboard.url());
        assertThat(page.locator("#keys tbody tr")).hasCount(2);
        assertThat(page.locator("#keys tbody tr").first()).hasAttribute("data-status", "blocked");
        assertThat(page.locator("#keys tr[data-key='seq:order-7']")).containsText("blocked by job " + blocker + " (discarded)");
        assertThat(page.locator("#keys tr[data-key='seq:order-7'] .blocked a")).hasAttribute("href", "#/jobs/" + blocker);
        assertThat(page.locator("#keys tr[data-key='seq:order-7']")).containsText("enqueue order");
        assertThat(page.locator("#keys tr[data-key='seq:order-7'] td.holder")).hasText("#" + blocker + " discarded");
        assertThat(page.locator("#keys tr[data-status=full] td.holder")).hasText(java.util.regex.Pattern.compile("^#\\d+$"));
        assertThat(page.locator("#keys tr[data-status=full] td.key")).hasText("kind:sync/" + hostile);
        assertThat(page.locator("#keys tr[data-status=full]")).containsText("2 / 2");
        assertThat(page.locator("#keys tr[data-status=full] td.num").nth(2)).hasText("1"); // waiting
        assertThat(page.locator("#keys img")).hasCount(0);
        assertThat(page.evaluate("() => typeof window.__pwned")).isEqualTo("undefined");
        screenshot("dashboard-keys.png");
    }

    @Test
    void failedJobShowsItsErrorHistoryAndRetryMakesItAvailable() throws Exception {
        // Found through the search box by its args, as an operator would.
        page.navigate(dashboard.url());
        page.locator("#search-input").fill("{\"note\": \"order 7\"}");
        page.locator("#search-input").press("Enter");
        assertThat(page.locator("#jobs tbody tr")).hasCount(1);
        assertThat(page.locator("#jobs tr[data-job-id='" + failedId + "'] td.err"))
                .hasText("java.lang.IllegalStateException: card declined: order 7");
        assertThat(page.locator("#jobs tr[data-job-id='" + failedId + "'] td.args")).hasText("{\"note\":\"order 7\"}");
        page.locator("#jobs tr[data-job-id='" + failedId + "'] a").click();

        assertThat(page.locator("#errors .error-entry")).hasCount(1);
        assertThat(page.locator("#errors .message")).hasText("card declined: order 7");
        assertThat(page.locator("#errors code")).hasText("java.lang.IllegalStateException");
        assertThat(page.locator("#errors pre.stack")).containsText("at dev.skipjack.dashboard.DashboardBrowserTest");
        assertThat(page.locator("#job-progress")).containsText("30% · charging <b>the card</b> (attempt 1");
        assertThat(page.locator("#job-progress progress")).hasAttribute("value", "30");
        assertThat(page.locator("#job-log")).containsText("— attempt 1");
        assertThat(page.locator("#job-log")).containsText("calling the gateway for order 7");
        assertThat(page.locator("#job-log")).containsText("<script>window.__pwned = 3</script>");
        assertThat(page.locator("#job-log script")).hasCount(0);
        assertThat(page.locator("script")).hasCount(1); // app.js only
        screenshot("dashboard-failed-job.png");

        page.locator("button[data-action=retry]").click();
        assertThat(page.locator("#job-state")).hasText("available");
        assertThat(count("SELECT count(*) FROM {{jobs}} WHERE id = " + failedId + " AND state = 'available' AND max_attempts = 2"))
                .isEqualTo(1);
        // The history is kept.
        assertThat(page.locator("#errors .error-entry")).hasCount(1);
    }

    @Test
    void aSlowOverviewDoesNotReplaceThePageTheOperatorMovedTo() {
        // The first overview load is the slowest request a page makes. Hold it until the operator
        // has searched, then let it answer: the search result must stay on screen. (The search box
        // keeps focus, so the 2 s refresh would never repair a page replaced by the late answer.)
        List<Route> held = new ArrayList<>();
        page.route("**/api/overview", held::add);
        page.waitForRequest("**/api/overview", () -> page.navigate(dashboard.url()));
        page.locator("#search-input").fill("{\"note\": \"order 7\"}");
        page.locator("#search-input").press("Enter");
        assertThat(page.locator("#jobs tr[data-job-id='" + failedId + "']")).isVisible();
        assertThat(held).as("the first overview request, still unanswered").hasSize(1);

        int finished = Integer.parseInt(page.locator("body").getAttribute("data-renders-finished"));
        held.forEach(Route::resume);
        page.waitForFunction("n => Number(document.body.dataset.rendersFinished) > n", finished);
        assertThat(page.locator("h1").textContent()).isEqualTo("Jobs");
        assertThat(page.locator("#jobs tbody tr").count()).isEqualTo(1);
    }

    @Test
    void unauthenticatedRequestsAreRefused() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(dashboard.url())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
        assertThat(page.body()).doesNotContain("Skipjack</a>");

        HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/overview"))
                .header("Authorization", basic(USER, "not-the-password")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrong.statusCode()).isEqualTo(401);

        HttpResponse<String> retry = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/jobs/" + failedId + "/retry"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(retry.statusCode()).isEqualTo(401);
        assertThat(count("SELECT count(*) FROM {{jobs}} WHERE id = " + failedId + " AND state = 'discarded'")).isEqualTo(1);

        // A browser without credentials gets the refusal, not the dashboard (headless Chromium
        // cannot show the login prompt, so it fails the navigation on the 401 challenge).
        try (BrowserContext anonymous = browser.newContext()) {
            assertThat(anonymous.request().get(dashboard.url() + "api/overview").status()).isEqualTo(401);
            assertThatThrownBy(() -> anonymous.newPage().navigate(dashboard.url()))
                    .hasMessageContaining("ERR_INVALID_AUTH_CREDENTIALS");
        }
    }

    @Test
    void crossSitePostIsRefusedEvenWithTheBrowsersCredentials() throws Exception {
        // Another origin (same host, other port) with a form that auto-posts to the dashboard.
        String target = dashboard.url() + "api/jobs/" + failedId + "/retry";
        HttpServer attacker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] html = ("<!doctype html><form id=f method=post action='" + target + "'></form>"
                + "<script>document.getElementById('f').submit()</script>").getBytes(StandardCharsets.UTF_8);
        attacker.createContext("/", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/html");
            ex.sendResponseHeaders(200, html.length);
            ex.getResponseBody().write(html);
            ex.close();
        });
        attacker.start();
        try {
            Response posted = page.waitForResponse(r -> r.url().equals(target),
                    () -> page.navigate("http://127.0.0.1:" + attacker.getAddress().getPort() + "/"));
            assertThat(posted.status()).isEqualTo(403);
            assertThat(posted.text()).contains("cross-site request refused");
        } finally {
            attacker.stop(0);
        }
        assertThat(count("SELECT count(*) FROM {{jobs}} WHERE id = " + failedId + " AND state = 'discarded'")).isEqualTo(1);

        // Same origin but without the page's CSRF token (what a script injected elsewhere could try): refused too.
        page.navigate(dashboard.url());
        Object status = page.evaluate("async (u) => (await fetch(u, {method: 'POST'})).status", target);
        assertThat(status).isEqualTo(403);
        assertThat(count("SELECT count(*) FROM {{jobs}} WHERE id = " + failedId + " AND state = 'discarded'")).isEqualTo(1);
    }

    @Test
    void scriptInJobArgsRendersAsText() throws Exception {
        page.navigate(dashboard.url() + "#/jobs?queue=mail&state=available");
        assertThat(page.locator("#jobs tr[data-job-id='" + scriptId + "'] td.args")).containsText("<script>window.__pwned = 1</script>");

        page.navigate(dashboard.url() + "#/jobs/" + scriptId);
        assertThat(page.locator("#args")).containsText("</pre><script>window.__pwned = 1</script><img src=x onerror=");
        assertThat(page.locator("#args img")).hasCount(0);
        assertThat(page.locator("#metadata")).containsText("<script>window.__pwned = 2</script>");
        assertThat(page.locator("#tags a")).hasText("import-7");
        assertThat(page.locator("script")).hasCount(1); // app.js only
        assertThat(page.evaluate("() => typeof window.__pwned")).isEqualTo("undefined");
        screenshot("dashboard-script-args.png");

        page.locator("#tags a").click();
        assertThat(page.locator("#jobs tbody tr")).hasCount(1);
        assertThat(page.locator("#jobs tr[data-job-id='" + scriptId + "']")).isVisible();
    }

    /** Issue 14, item 6: an exception message is attacker-reachable text (it often quotes input). */
    @Test
    void scriptInAnErrorMessageRendersAsText() throws Exception {
        String hostile = "bad row </pre><script>window.__pwned = 5</script><img src=x onerror=\"window.__pwned = 6\">";
        long id;
        try (Skipjack worker = Skipjack.builder(dataSource).schema(schema).queue("imports", 1).pollInterval(Duration.ofMillis(50))
                .handler(JobKind.of("import-row", Args.class), KindOptions.defaults().withMaxAttempts(1), job -> {
                    throw new IllegalArgumentException(job.args().note());
                }).build()) {
            worker.start();
            id = worker.enqueue("import-row", new Args(hostile), EnqueueOptions.defaults().withQueue("imports"));
            awaitSql("job " + id + " discarded", "SELECT count(*) FROM {{jobs}} WHERE id = " + id + " AND state = 'discarded'", 1);
        }
        page.navigate(dashboard.url() + "#/jobs?queue=imports");
        assertThat(page.locator("#jobs tr[data-job-id='" + id + "'] td.err")).containsText("<script>window.__pwned = 5</script>");
        page.navigate(dashboard.url() + "#/jobs/" + id);
        assertThat(page.locator("#errors .message")).hasText(hostile);
        assertThat(page.locator("#errors img")).hasCount(0);
        assertThat(page.locator("#jobs img, #args img")).hasCount(0);
        assertThat(page.locator("script")).hasCount(1); // app.js only
        assertThat(page.evaluate("() => typeof window.__pwned")).isEqualTo("undefined");
    }

    @Test
    void readOnlyDashboardHasNoButtonsAndRefusesChanges() throws Exception {
        try (SkipjackDashboard readOnly = SkipjackDashboard.builder(skipjack.admin()).port(0).readOnly(true).build().start()) {
            assertThat(readOnly.authenticationRequired()).as("loopback without credentials").isFalse();
            page.navigate(readOnly.url() + "#/jobs/" + failedId);
            assertThat(page.locator("#job-state")).hasText("discarded");
            assertThat(page.locator("#mode")).isVisible();
            assertThat(page.locator("button[data-action]")).hasCount(0);
            Object status = page.evaluate("async (id) => { const s = await (await fetch('/api/session')).json();"
                    + " return (await fetch('/api/jobs/' + id + '/retry', {method: 'POST', headers: {[s.csrfHeader]: s.csrfToken}})).status; }",
                    String.valueOf(failedId));
            assertThat(status).isEqualTo(403);
            // Without authentication only loopback Host names are served (no DNS rebinding).
            assertThat(statusLine(readOnly.port(), "localhost:" + readOnly.port())).contains(" 200 ");
            assertThat(statusLine(readOnly.port(), "rebound.example:" + readOnly.port())).contains(" 403 ");
        }
        assertThat(count("SELECT count(*) FROM {{jobs}} WHERE id = " + failedId + " AND state = 'discarded'")).isEqualTo(1);
        assertThat(SkipjackDashboard.builder(skipjack.admin()).host("0.0.0.0").port(0).build().authenticationRequired())
                .as("any non-loopback address without credentials gets a generated password").isTrue();
    }

    @Test
    void workflowRouteAnswersItsStepsAndRefusesUnknownIdsAndStrangers() throws Exception {
        dev.skipjack.EnqueuedWorkflow w = skipjack.enqueueWorkflow(diamond());
        // The edge from b to d counted, as b's completion would have (plain SQL: no worker runs here).
        sql("UPDATE \"" + schema + "\".skipjack_job_dependencies SET satisfied = true WHERE child_id = " + w.jobId("d")
                + " AND parent_id = " + w.jobId("b"));
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> shown = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/workflows/" + w.id()))
                .header("Authorization", basic(USER, PASSWORD)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(shown.statusCode()).isEqualTo(200);
        com.fasterxml.jackson.databind.JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(shown.body());
        assertThat(body.get("id").asLong()).isEqualTo(w.id());
        assertThat(body.get("name").asText()).isEqualTo("nightly");
        assertThat(body.get("state").asText()).isEqualTo("running");
        assertThat(body.get("remaining").asInt()).isEqualTo(4);
        assertThat(body.get("steps")).hasSize(4);
        List<String> names = new ArrayList<>();
        body.get("steps").forEach(s -> names.add(s.get("name").asText()));
        assertThat(names).containsExactly("a", "b", "c", "d");
        com.fasterxml.jackson.databind.JsonNode d = body.get("steps").get(3);
        assertThat(d.get("dependsOn").toString()).isEqualTo("[\"b\",\"c\"]");
        assertThat(d.get("satisfied").toString()).isEqualTo("[\"b\"]");
        assertThat(d.get("job").get("id").asLong()).isEqualTo(w.jobId("d"));
        assertThat(d.get("job").get("state").asText()).isEqualTo("waiting");

        HttpResponse<String> unknown = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/workflows/424242"))
                .header("Authorization", basic(USER, PASSWORD)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("no workflow 424242");

        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(dashboard.url() + "api/workflows/" + w.id()))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);

        // The page marks the counted edge.
        page.navigate(dashboard.url() + "#/workflows/" + w.id());
        assertThat(page.locator("#workflow-steps tr[data-step=d] td.depends-on")).hasText("b ✓, c");
        assertThat(page.locator("#workflow-steps tr[data-step=d] td.depends-on .satisfied")).hasText("b ✓");
        assertThat(page.locator("#workflow-steps tr[data-step=d] [data-state]")).hasText("waiting");
    }

    @Test
    void workflowViewListsTheStepsFromAJobsWorkflowField() throws Exception {
        dev.skipjack.EnqueuedWorkflow w = skipjack.enqueueWorkflow(diamond());
        // An operator cancels the first step: under the CANCEL policy every other step is cancelled with it.
        assertThat(skipjack.admin().act(dev.skipjack.JobAction.CANCEL, w.jobId("a"))).isTrue();

        page.navigate(dashboard.url() + "#/jobs/" + w.jobId("b"));
        assertThat(page.locator("#workflow")).hasText("#" + w.id() + ", step b");
        page.locator("#workflow-link").click();

        assertThat(page.locator("#workflow-steps tbody tr")).hasCount(4);
        assertThat(page.locator("#workflow-state")).hasText("cancelled");
        assertThat(page.locator("#workflow-remaining")).hasText("0 of 4 jobs");
        List<String> order = page.locator("#workflow-steps tbody tr").all().stream().map(r -> r.getAttribute("data-step")).toList();
        assertThat(order).containsExactly("a", "b", "c", "d");
        assertThat(page.locator("#workflow-steps tr[data-step=d] td.depends-on")).hasText("b, c");
        assertThat(page.locator("#workflow-steps tr[data-step=a] td.depends-on")).hasText("—");
        assertThat(page.locator("#workflow-steps tr[data-step=d] [data-state]")).hasText("cancelled");
        assertThat(page.locator("#workflow-steps tr[data-step=d] td.err")).containsText("DependencyFailed");
        screenshot("dashboard-workflow.png");

        page.locator("#workflow-steps tr[data-step=c] a").click();
        assertThat(page.locator("h1")).containsText("Job " + w.jobId("c"));
        assertThat(page.locator("#job-state")).hasText("cancelled");

        page.navigate(dashboard.url() + "#/workflows/424242");
        assertThat(page.locator("#no-workflow")).hasText("No such workflow.");
    }

    private static dev.skipjack.Workflow diamond() {
        return dev.skipjack.Workflow.named("nightly")
                .add("a", dev.skipjack.JobRequest.of("send-email", new Args("extract")))
                .add("b", dev.skipjack.JobRequest.of("send-email", new Args("load-eu")), dev.skipjack.Workflow.dependsOn("a"))
                .add("c", dev.skipjack.JobRequest.of("send-email", new Args("load-us")), dev.skipjack.Workflow.dependsOn("a"))
                .add("d", dev.skipjack.JobRequest.of("send-email", new Args("report")), dev.skipjack.Workflow.dependsOn("b", "c"));
    }

    @Test
    void badDashboardSettingsNameTheOption() {
        SkipjackDashboard.Builder builder = SkipjackDashboard.builder(skipjack.admin());
        assertThatThrownBy(() -> builder.host(" ")).isInstanceOf(InvalidConfigurationException.class)
                .extracting(e -> ((InvalidConfigurationException) e).option()).isEqualTo("host");
        assertThatThrownBy(() -> builder.port(65_536)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("65536").extracting(e -> ((InvalidConfigurationException) e).option()).isEqualTo("port");
        assertThatThrownBy(() -> builder.basicAuth("a:b", PASSWORD)).isInstanceOf(InvalidConfigurationException.class)
                .extracting(e -> ((InvalidConfigurationException) e).option()).isEqualTo("basicAuth");
        assertThatThrownBy(() -> builder.basicAuth(USER, "short")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("8 characters");
    }

    // ---------------------------------------------------------------- helpers

    private void screenshot(String name) throws Exception {
        Path out = Paths.get("target", "screenshots", name);
        Files.createDirectories(out.getParent());
        page.screenshot(new Page.ScreenshotOptions().setPath(out).setFullPage(true));
        if ("1".equals(System.getenv("SKIPJACK_UPDATE_SCREENSHOTS"))) {
            Path docs = Paths.get("..", "docs", "images", name);
            Files.createDirectories(docs.getParent());
            Files.copy(out, docs, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** A raw request, because java.net.http will not send a Host header of our choosing. */
    private static String statusLine(int port, String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET /api/overview HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private String table() {
        return "\"" + schema + "\".skipjack_jobs";
    }

    private void sql(String statement) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(statement.replace("{{jobs}}", table()));
        } catch (SQLException e) {
            throw new IllegalStateException(statement + ": " + e.getMessage(), e);
        }
    }

    private long count(String query) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query.replace("{{jobs}}", table()))) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(query + ": " + e.getMessage(), e);
        }
    }

    private void awaitSql(String what, String query, long expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (count(query) != expected) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
