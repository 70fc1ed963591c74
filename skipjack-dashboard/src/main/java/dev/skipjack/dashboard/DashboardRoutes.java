package dev.skipjack.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.ConcurrencyKeyInfo;
import dev.skipjack.InvalidJobException;
import dev.skipjack.JobAction;
import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;
import dev.skipjack.ShardedAdmin;
import dev.skipjack.ShardedSkipjack.ShardJobId;
import dev.skipjack.SkipjackException;
import dev.skipjack.ThroughputBucket;
import dev.skipjack.internal.json.JobJson;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The dashboard's pages and JSON API. All job content leaves here as JSON, shaped by {@link JobJson}
 * like the CLI's {@code --json}; the page renders it as text.
 *
 * <p>Everything goes through a {@link ShardedAdmin}, one database being one shard. With several
 * shards every job, node, key and schedule carries its {@code shard}, jobs and workflows are
 * addressed as {@code shard:id} in paths, the overview's counts are summed with a per-shard
 * breakdown in {@code shards}, and the job list's {@code after} cursor is the composite's.
 */
final class DashboardRoutes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STATIC = "/dev/skipjack/dashboard/static/";
    private static final Map<String, String> ASSETS = Map.of(
            "/", "index.html",
            "/app.js", "app.js",
            "/app.css", "app.css");

    private final ShardedAdmin admin;
    private final boolean sharded;
    private final RequestGuard guard;
    private final String csrfToken;
    private final boolean readOnly;
    /** One overview for every page polling this dashboard. */
    private final SharedOverview overviews = new SharedOverview(this::computeOverview);

    DashboardRoutes(ShardedAdmin admin, RequestGuard guard, String csrfToken, boolean readOnly) {
        this.admin = admin;
        this.sharded = admin.shardNames().size() > 1;
        this.guard = guard;
        this.csrfToken = csrfToken;
        this.readOnly = readOnly;
    }

    void register(RoutesConfig routes) {
        routes.before(guard::check);
        ASSETS.forEach((path, file) -> routes.get(path, ctx -> asset(ctx, file)));
        routes.get("/api/session", ctx -> json(ctx, JSON.createObjectNode().put("csrfToken", csrfToken).put("readOnly", readOnly)
                .put("csrfHeader", RequestGuard.CSRF_HEADER).set("shards", shardNames())));
        routes.get("/api/overview", this::overview);
        routes.get("/api/jobs", this::jobs);
        routes.get("/api/jobs/{id}", this::job);
        routes.get("/api/workflows/{id}", this::workflow);
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

    private ArrayNode shardNames() {
        ArrayNode names = JSON.createArrayNode();
        admin.shardNames().forEach(names::add);
        return names;
    }

    private void overview(Context ctx) {
        jsonText(ctx, overviews.get());
    }

    private String computeOverview() {
        Map<String, List<QueueInfo>> perShard = admin.queuesPerShard();
        List<QueueInfo> queues = ShardedAdmin.sumQueues(perShard.values());
        List<ThroughputBucket> buckets = admin.throughput(Duration.ofHours(1), Duration.ofMinutes(1));
        ObjectNode n = JobJson.stats(Instant.now(), queues);
        ArrayNode t = n.putArray("throughput");
        for (ThroughputBucket b : buckets) {
            t.addObject().put("start", b.start().toString()).put("completed", b.completed())
                    .put("discarded", b.discarded()).put("cancelled", b.cancelled());
        }
        if (sharded) {
            // Each shard's own totals, so an operator sees which database holds the backlog.
            ArrayNode shards = n.putArray("shards");
            perShard.forEach((shard, shardQueues) -> shards.add(JobJson.stats(Instant.now(), shardQueues)
                    .put("shard", shard).without("queues")));
        }
        n.set("nodes", JobJson.perShard(admin.nodes(), JobJson::nodes, sharded));
        n.set("schedules", JobJson.perShard(admin.schedules(), JobJson::schedules, sharded));
        List<ShardKey> keys = new ArrayList<>();
        admin.concurrencyKeys().forEach((shard, list) -> list.forEach(k -> keys.add(new ShardKey(shard, k))));
        // The keys needing an operator first: an ordered key held by a job that is not running
        // (blocked by a discarded job, or waiting on a retry), then full keys with jobs waiting.
        List<ShardKey> shown = keys.stream()
                .sorted(Comparator.comparingInt((ShardKey k) -> attention(k.key())).thenComparing(k -> k.key().key())
                        .thenComparing(ShardKey::shard))
                .limit(KEYS_SHOWN).toList();
        ArrayNode keyNodes = n.putArray("concurrencyKeys");
        for (ShardKey k : shown) {
            JobJson.concurrencyKeys(List.of(k.key()), id -> admin.shard(k.shard()).job(id))
                    .forEach(key -> keyNodes.add(withShard((ObjectNode) key, k.shard())));
        }
        n.put("concurrencyKeysInUse", keys.size());
        return text(n);
    }

    /** A concurrency key and the shard it lives on (a key's limit holds per shard). */
    private record ShardKey(String shard, ConcurrencyKeyInfo key) {
    }


    /** Most keys the overview shows (each ordered one may cost a lookup of its holder). */
    static final int KEYS_SHOWN = 50;

    private static int attention(ConcurrencyKeyInfo k) {
        if (k.ordered() && k.holding() > 0 && k.running() == 0) {
            return 0;
        }
        return k.isFull() && k.waiting() > 0 ? 1 : 2;
    }

    private void jobs(Context ctx) {
        JobQuery q = JobQuery.all();
        String queue = blankToNull(ctx.queryParam("queue"));
        String kind = blankToNull(ctx.queryParam("kind"));
        String state = blankToNull(ctx.queryParam("state"));
        String args = blankToNull(ctx.queryParam("args"));
        String tag = blankToNull(ctx.queryParam("tag"));
        String after = blankToNull(ctx.queryParam("after"));
        String limit = blankToNull(ctx.queryParam("limit"));
        if (queue != null) {
            q = q.queue(queue);
        }
        if (kind != null) {
            q = q.kind(kind);
        }
        if (state != null) {
            q = q.state(Arrays.stream(state.split(",", -1)).map(DashboardRoutes::jobState).toArray(JobState[]::new));
        }
        if (args != null) {
            q = q.argsContain(args);
        }
        if (tag != null) {
            q = q.tag(tag);
        }
        q = q.limit(limit == null ? 50 : pageSize(limit));
        ShardedAdmin.ShardJobPage page;
        try {
            page = admin.jobs(q, after);
        } catch (InvalidJobException e) {
            throw new IllegalArgumentException("parameter 'after': " + e.getMessage(), e);
        }
        ObjectNode n = JSON.createObjectNode();
        ArrayNode jobs = n.putArray("jobs");
        page.jobs().forEach(j -> jobs.add(withShard(JobJson.job(j.job()), j.shard())));
        n.put("nextCursor", page.nextCursor());
        json(ctx, n);
    }

    private ObjectNode withShard(ObjectNode node, String shard) {
        return sharded ? node.put("shard", shard) : node;
    }

    private void job(Context ctx) {
        ShardJobId id = id(ctx);
        var found = admin.job(id);
        if (found.isEmpty()) {
            error(ctx, 404, "no job " + admin.format(id));
            return;
        }
        json(ctx, withShard(JobJson.jobWithErrors(found.get().job(), admin.jobLog(id)), id.shard()));
    }

    /** One workflow (F-14): its header and its steps, each with its job, as {@link JobJson#workflow} shapes it. */
    private void workflow(Context ctx) {
        ShardJobId id = id(ctx);
        var found = admin.workflow(id);
        if (found.isEmpty()) {
            error(ctx, 404, "no workflow " + admin.format(id));
            return;
        }
        json(ctx, withShard(JobJson.workflow(found.get()), id.shard()));
    }

    private void act(Context ctx) {
        ShardJobId id = id(ctx);
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
        overviews.invalidate();
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
        overviews.invalidate();
        json(ctx, JSON.createObjectNode().put("ok", true));
    }

    /**
     * A job's or workflow's address from the path: {@code shard:id}, or with one shard also the
     * bare id (a positive whole number); the composite's refusal names what is wrong.
     */
    private ShardJobId id(Context ctx) {
        String raw = ctx.pathParam("id");
        try {
            return admin.address(raw);
        } catch (InvalidJobException e) {
            throw new IllegalArgumentException("parameter 'id': " + e.getMessage(), e);
        }
    }

    /**
     * A whole number from a parameter. Values beyond a long are refused like any other non-number,
     * so a limit of 10^20 is an error rather than silently some other size.
     */
    private static long number(String name, String raw) {
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw badParameter(name, raw, "a whole number");
        }
    }

    private static int pageSize(String raw) {
        long size = number("limit", raw);
        if (size < 1 || size > JobQuery.MAX_LIMIT) {
            throw badParameter("limit", raw, "between 1 and " + JobQuery.MAX_LIMIT);
        }
        return (int) size;
    }

    private static JobState jobState(String raw) {
        String name = raw.trim().toUpperCase(Locale.ROOT);
        for (JobState s : JobState.values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw badParameter("state", raw, "a comma-separated list of " + Arrays.stream(JobState.values())
                .map(s -> s.name().toLowerCase(Locale.ROOT)).toList());
    }

    /**
     * Answered 400 by the exception handler. The value is echoed shortened: the reply is JSON
     * (served with nosniff) and never markup, but a 200 KB echo helps no operator.
     */
    private static IllegalArgumentException badParameter(String name, String raw, String expected) {
        String shown = raw.length() > 40 ? raw.substring(0, 40) + "... (" + raw.length() + " chars)" : raw;
        return new IllegalArgumentException("parameter '" + name + "' must be " + expected + ", got '" + shown + "'");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static void json(Context ctx, JsonNode node) {
        jsonText(ctx, text(node));
    }

    private static void jsonText(Context ctx, String json) {
        ctx.contentType("application/json; charset=utf-8").result(json);
    }

    private static String text(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void error(Context ctx, int status, String message) {
        ctx.status(status);
        json(ctx, JSON.createObjectNode().put("error", message));
    }
}
