package dev.skipjack.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.InvalidJobException;
import dev.skipjack.JobAction;
import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobPage;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.SkipjackAdmin;
import dev.skipjack.SkipjackException;
import dev.skipjack.ThroughputBucket;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The dashboard's pages and JSON API. All job content leaves here as JSON; the page renders it as text. */
final class DashboardRoutes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STATIC = "/dev/skipjack/dashboard/static/";
    private static final Map<String, String> ASSETS = Map.of(
            "/", "index.html",
            "/app.js", "app.js",
            "/app.css", "app.css");

    private final SkipjackAdmin admin;
    private final RequestGuard guard;
    private final String csrfToken;
    private final boolean readOnly;

    DashboardRoutes(SkipjackAdmin admin, RequestGuard guard, String csrfToken, boolean readOnly) {
        this.admin = admin;
        this.guard = guard;
        this.csrfToken = csrfToken;
        this.readOnly = readOnly;
    }

    void register(RoutesConfig routes) {
        routes.before(guard::check);
        ASSETS.forEach((path, file) -> routes.get(path, ctx -> asset(ctx, file)));
        routes.get("/api/session", ctx -> json(ctx, JSON.createObjectNode().put("csrfToken", csrfToken).put("readOnly", readOnly)
                .put("csrfHeader", RequestGuard.CSRF_HEADER)));
        routes.get("/api/overview", this::overview);
        routes.get("/api/jobs", this::jobs);
        routes.get("/api/jobs/{id}", this::job);
        routes.post("/api/jobs/{id}/{action}", this::act);
        routes.post("/api/queues/{name}/{action}", this::queueAction);
        routes.exception(InvalidJobException.class, (e, ctx) -> error(ctx, 400, e.getMessage()));
        routes.exception(IllegalArgumentException.class, (e, ctx) -> error(ctx, 400, e.getMessage()));
        routes.exception(SkipjackException.class, (e, ctx) -> error(ctx, 500, e.getMessage()));
    }

    private void asset(Context ctx, String file) {
        String type = file.endsWith(".js") ? "text/javascript; charset=utf-8"
                : file.endsWith(".css") ? "text/css; charset=utf-8" : "text/html; charset=utf-8";
        try (InputStream in = DashboardRoutes.class.getResourceAsStream(STATIC + file)) {
            if (in == null) {
                throw new IllegalStateException("missing dashboard asset " + file);
            }
            ctx.contentType(type).result(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void overview(Context ctx) {
        List<QueueInfo> queues = admin.queues();
        List<ThroughputBucket> buckets = admin.throughput(Duration.ofHours(1), Duration.ofMinutes(1));
        ObjectNode n = JSON.createObjectNode();
        n.put("at", Instant.now().toString());
        ArrayNode qs = n.putArray("queues");
        ObjectNode totals = n.putObject("totals");
        for (JobState s : JobState.values()) {
            totals.put(s.dbValue(), 0L);
        }
        for (QueueInfo q : queues) {
            ObjectNode qn = qs.addObject();
            qn.put("name", q.name());
            qn.put("paused", q.paused());
            ObjectNode counts = qn.putObject("counts");
            for (JobState s : JobState.values()) {
                counts.put(s.dbValue(), q.count(s));
                totals.put(s.dbValue(), totals.get(s.dbValue()).asLong() + q.count(s));
            }
        }
        ArrayNode t = n.putArray("throughput");
        for (ThroughputBucket b : buckets) {
            t.addObject().put("start", b.start().toString()).put("completed", b.completed())
                    .put("discarded", b.discarded()).put("cancelled", b.cancelled());
        }
        json(ctx, n);
    }

    private void jobs(Context ctx) {
        JobQuery q = JobQuery.all();
        String queue = blankToNull(ctx.queryParam("queue"));
        String kind = blankToNull(ctx.queryParam("kind"));
        String state = blankToNull(ctx.queryParam("state"));
        String args = blankToNull(ctx.queryParam("args"));
        String after = blankToNull(ctx.queryParam("after"));
        String limit = blankToNull(ctx.queryParam("limit"));
        if (queue != null) {
            q = q.queue(queue);
        }
        if (kind != null) {
            q = q.kind(kind);
        }
        if (state != null) {
            q = q.state(Arrays.stream(state.split(",")).map(s -> JobState.valueOf(s.trim().toUpperCase(Locale.ROOT)))
                    .toArray(JobState[]::new));
        }
        if (args != null) {
            q = q.argsContain(args);
        }
        if (after != null) {
            q = q.after(Long.parseLong(after));
        }
        q = q.limit(limit == null ? 50 : Integer.parseInt(limit));
        JobPage page = admin.jobs(q);
        ObjectNode n = JSON.createObjectNode();
        ArrayNode jobs = n.putArray("jobs");
        page.jobs().forEach(j -> jobs.add(job(j, false)));
        if (page.nextCursor() == null) {
            n.putNull("nextCursor");
        } else {
            n.put("nextCursor", page.nextCursor());
        }
        json(ctx, n);
    }

    private void job(Context ctx) {
        long id = Long.parseLong(ctx.pathParam("id"));
        var found = admin.job(id);
        if (found.isEmpty()) {
            error(ctx, 404, "no job " + id);
            return;
        }
        json(ctx, job(found.get(), true));
    }

    private void act(Context ctx) {
        long id = Long.parseLong(ctx.pathParam("id"));
        JobAction action = switch (ctx.pathParam("action")) {
            case "retry" -> JobAction.RETRY;
            case "cancel" -> JobAction.CANCEL;
            case "discard" -> JobAction.DISCARD;
            case "delete" -> JobAction.DELETE;
            default -> null;
        };
        if (action == null) {
            error(ctx, 404, "unknown action");
            return;
        }
        boolean changed = admin.act(action, id);
        ctx.status(changed ? 200 : 409);
        json(ctx, JSON.createObjectNode().put("changed", changed));
    }

    private void queueAction(Context ctx) {
        String name = ctx.pathParam("name");
        switch (ctx.pathParam("action")) {
            case "pause" -> admin.pause(name);
            case "resume" -> admin.resume(name);
            default -> {
                error(ctx, 404, "unknown action");
                return;
            }
        }
        json(ctx, JSON.createObjectNode().put("ok", true));
    }

    private static ObjectNode job(JobInfo j, boolean detail) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", j.id());
        n.put("queue", j.queue());
        n.put("kind", j.kind());
        n.put("state", j.state().dbValue());
        n.put("priority", j.priority());
        n.put("attempt", j.attempt());
        n.put("maxAttempts", j.maxAttempts());
        n.put("createdAt", str(j.createdAt()));
        n.put("runAt", str(j.runAt()));
        n.put("attemptedAt", str(j.attemptedAt()));
        n.put("finishedAt", str(j.finishedAt()));
        n.put("claimedBy", j.claimedBy());
        n.put("errorCount", j.errors().size());
        // Args go out as the stored JSON text: the page shows them verbatim, as text.
        n.put("args", detail ? pretty(j.argsJson()) : j.argsJson());
        if (!j.errors().isEmpty()) {
            JobError last = j.errors().get(j.errors().size() - 1);
            n.put("lastError", last.errorClass() + ": " + last.message());
        }
        if (detail) {
            ArrayNode errors = n.putArray("errors");
            for (JobError e : j.errors()) {
                errors.addObject().put("at", str(e.at())).put("attempt", e.attempt()).put("class", e.errorClass())
                        .put("message", e.message()).put("stack", e.stack());
            }
        }
        return n;
    }

    private static String pretty(String json) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(json));
        } catch (JsonProcessingException e) {
            return json;
        }
    }

    private static String str(Instant t) {
        return t == null ? null : t.toString();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static void json(Context ctx, JsonNode node) {
        try {
            ctx.contentType("application/json; charset=utf-8").result(JSON.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void error(Context ctx, int status, String message) {
        ctx.status(status);
        json(ctx, JSON.createObjectNode().put("error", message));
    }
}
