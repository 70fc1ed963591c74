package dev.skipjack.internal.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.ConcurrencyKeyInfo;
import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobLog;
import dev.skipjack.JobPage;
import dev.skipjack.JobState;
import dev.skipjack.NodeInfo;
import dev.skipjack.ScheduleInfo;
import dev.skipjack.QueueInfo;
import dev.skipjack.WorkflowInfo;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The one JSON shape of jobs, pages, queues and stats. {@code skipjack ... --json} and the
 * dashboard's API both answer with it, so a script written against one reads the other; the
 * shape is documented in docs/operating.md ("JSON output") and pinned by JobJsonTest. A renamed
 * field breaks scripts: change the docs and that test with it.
 */
public final class JobJson {

    /*
     * Args are user data: numbers must come out as they were stored. Without big decimals 10.50
     * would print as 10.5 and a long decimal would be rounded through a double.
     */
    private static final ObjectMapper ARGS = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();
    private static final JsonNodeFactory NODES = ARGS.getNodeFactory();

    private JobJson() {
    }

    /** A job as listed: everything but the error history, of which only the last entry is kept. */
    public static ObjectNode job(JobInfo j) {
        ObjectNode n = NODES.objectNode();
        n.put("id", j.id());
        n.put("queue", j.queue());
        n.put("kind", j.kind());
        n.put("state", j.state().dbValue());
        n.set("args", args(j.argsJson()));
        n.put("priority", j.priority());
        n.put("attempt", j.attempt());
        n.put("maxAttempts", j.maxAttempts());
        n.put("runAt", time(j.runAt()));
        n.put("createdAt", time(j.createdAt()));
        n.put("attemptedAt", time(j.attemptedAt()));
        n.put("finishedAt", time(j.finishedAt()));
        n.put("claimedBy", j.claimedBy());
        n.put("leaseUntil", time(j.leaseUntil()));
        n.put("uniqueKey", j.uniqueKey());
        ArrayNode tags = n.putArray("tags");
        j.tags().forEach(tags::add);
        n.set("metadata", args(j.metadataJson() == null ? "{}" : j.metadataJson()));
        n.put("workflowId", j.workflowId());
        n.put("workflowStep", j.workflowStep());
        n.put("concurrencyKey", j.concurrencyKey());
        n.put("stopRequested", j.stopRequested() == null ? null : j.stopRequested().dbValue());
        n.put("errorCount", j.errors().size());
        // Without its stack: a page of fifty jobs should not carry fifty stack traces.
        n.set("lastError", j.errors().isEmpty() ? NODES.nullNode() : error(j.errors().get(j.errors().size() - 1), false));
        return n;
    }

    /** A single job as shown on its own: {@link #job} plus the whole error history with stacks. */
    public static ObjectNode jobWithErrors(JobInfo j) {
        ObjectNode n = job(j);
        n.set("output", j.outputJson() == null ? NODES.nullNode() : args(j.outputJson()));
        ArrayNode errors = n.putArray("errors");
        j.errors().forEach(e -> errors.add(error(e, true)));
        return n;
    }

    /**
     * A single job as shown on its own with what its handler reported (issue 12, item 6):
     * {@link #jobWithErrors} plus {@code progress} (null when none) and {@code log}, its lines
     * oldest first.
     */
    public static ObjectNode jobWithErrors(JobInfo j, JobLog log) {
        ObjectNode n = jobWithErrors(j);
        JobLog.Progress p = log.progress();
        if (p == null) {
            n.putNull("progress");
        } else {
            n.putObject("progress").put("attempt", p.attempt()).put("percent", p.percent()).put("message", p.message())
                    .put("updatedAt", time(p.updatedAt()));
        }
        ArrayNode lines = n.putArray("log");
        for (JobLog.Line line : log.lines()) {
            lines.addObject().put("attempt", line.attempt()).put("number", line.number())
                    .put("loggedAt", time(line.loggedAt())).put("line", line.text());
        }
        return n;
    }

    public static ObjectNode page(JobPage page) {
        ObjectNode n = NODES.objectNode();
        ArrayNode jobs = n.putArray("jobs");
        page.jobs().forEach(j -> jobs.add(job(j)));
        n.put("nextCursor", page.nextCursor());
        return n;
    }

    public static ObjectNode queue(QueueInfo q) {
        ObjectNode n = NODES.objectNode();
        n.put("name", q.name());
        n.put("paused", q.paused());
        n.put("pausedAt", time(q.pausedAt()));
        ObjectNode counts = n.putObject("counts");
        for (JobState s : JobState.values()) {
            counts.put(s.dbValue(), q.count(s));
        }
        n.put("total", q.total());
        ArrayNode served = n.putArray("servedBy");
        q.servedBy().forEach(served::add);
        return n;
    }

    public static ArrayNode queues(List<QueueInfo> queues) {
        ArrayNode a = NODES.arrayNode();
        queues.forEach(q -> a.add(queue(q)));
        return a;
    }

    /** The nodes running now ({@code skipjack nodes}, the dashboard's overview), each with its running jobs. */
    public static ArrayNode nodes(List<NodeInfo> nodes) {
        ArrayNode out = NODES.arrayNode();
        for (NodeInfo node : nodes) {
            ObjectNode n = out.addObject();
            n.put("workerId", node.workerId());
            n.put("queues", node.queues());
            n.put("startedAt", time(node.startedAt()));
            n.put("lastSeenAt", time(node.lastSeenAt()));
            ArrayNode running = n.putArray("running");
            for (NodeInfo.RunningJob r : node.running()) {
                running.addObject().put("id", r.id()).put("queue", r.queue()).put("kind", r.kind())
                        .put("startedAt", time(r.startedAt())).put("runningForMillis", r.runningFor().toMillis());
            }
        }
        return out;
    }

    /**
     * Lists kept per shard ({@link dev.skipjack.ShardedAdmin}: nodes, schedules, keys) as one array,
     * each item shaped by {@code shape} and, when {@code tagShards}, carrying its {@code shard}.
     */
    public static <T> ArrayNode perShard(Map<String, List<T>> perShard,
                                         java.util.function.Function<List<T>, ArrayNode> shape, boolean tagShards) {
        ArrayNode out = NODES.arrayNode();
        perShard.forEach((shard, items) -> {
            for (JsonNode item : shape.apply(items)) {
                if (tagShards) {
                    ((ObjectNode) item).put("shard", shard);
                }
                out.add(item);
            }
        });
        return out;
    }

    /** The cron schedules ({@code skipjack schedules list}, the dashboard's overview). */
    public static ArrayNode schedules(List<ScheduleInfo> schedules) {
        ArrayNode out = NODES.arrayNode();
        for (ScheduleInfo s : schedules) {
            ObjectNode n = out.addObject();
            n.put("name", s.name());
            n.put("expression", s.expression());
            n.put("zone", s.zone());
            n.put("kind", s.kind());
            n.put("queue", s.queue());
            n.set("args", args(s.argsJson()));
            n.put("misfire", s.misfire().name().toLowerCase(java.util.Locale.ROOT));
            n.put("allowOverlap", s.allowOverlap());
            n.put("nextTickAt", time(s.nextTickAt()));
            n.put("lastTickAt", time(s.lastTickAt()));
            if (s.lastJobId() == null) {
                n.putNull("lastJobId");
            } else {
                n.put("lastJobId", s.lastJobId());
            }
        }
        return out;
    }

    /**
     * The concurrency and sequence keys in use (F-12, F-13; {@code skipjack keys}, the dashboard's
     * overview), each with its usage. For an ordered key the job holding it is looked up with
     * {@code jobById} unless it is known to run (one lookup per ordered key whose holder does not
     * run, and none when that job is gone meanwhile): {@code heldByState} is its state, and the
     * key is {@code blocked} when that job is discarded (a BLOCK sequence waiting for an operator to
     * retry or delete it). {@code heldByState} is null for limits, whose holders are several.
     */
    public static ArrayNode concurrencyKeys(List<ConcurrencyKeyInfo> keys,
                                            java.util.function.LongFunction<java.util.Optional<JobInfo>> jobById) {
        ArrayNode out = NODES.arrayNode();
        for (ConcurrencyKeyInfo k : keys) {
            ObjectNode n = out.addObject();
            n.put("key", k.key());
            n.put("max", k.max());
            // A rate limit's period in milliseconds (at most max start per period); null for slots.
            n.put("periodMillis", k.period() == null ? null : k.period().toMillis());
            n.put("ordered", k.ordered());
            n.put("holding", k.holding());
            n.put("running", k.running());
            n.put("waiting", k.waiting());
            JobState holderState = null;
            if (k.heldBy() == null) {
                n.putNull("heldBy");
            } else {
                n.put("heldBy", k.heldBy());
                if (k.ordered() && k.running() > 0 && k.running() == k.holding()) {
                    holderState = JobState.RUNNING; // every holder runs: no lookup needed
                } else if (k.ordered()) {
                    holderState = jobById.apply(k.heldBy()).map(JobInfo::state).orElse(null);
                }
            }
            n.put("heldByState", holderState == null ? null : holderState.dbValue());
            n.put("full", k.isFull());
            n.put("blocked", k.ordered() && holderState == JobState.DISCARDED);
        }
        return out;
    }

    /**
     * Counts at {@code at}: the queues and the totals per state over all of them. The totals are
     * summed from the same queue counts, so they always agree with the rows shown beside them.
     */
    public static ObjectNode stats(Instant at, List<QueueInfo> queues) {
        ObjectNode n = NODES.objectNode();
        n.put("at", time(at));
        n.set("queues", queues(queues));
        ObjectNode totals = n.putObject("totals");
        for (JobState s : JobState.values()) {
            totals.put(s.dbValue(), queues.stream().mapToLong(q -> q.count(s)).sum());
        }
        return n;
    }

    /**
     * One workflow ({@code skipjack workflows show --json}, the dashboard's workflow view): its
     * header, then its steps in dependency order (parents before children), each with the steps
     * it depends on, the ones of those already counted ({@code satisfied}) and its job as listed
     * ({@link #job}: state, attempt, last error).
     */
    public static ObjectNode workflow(WorkflowInfo w) {
        ObjectNode n = NODES.objectNode();
        n.put("id", w.id());
        n.put("name", w.name());
        n.put("state", w.state().dbValue());
        n.put("policy", w.policy().dbValue());
        n.put("remaining", w.remaining());
        n.put("createdAt", time(w.createdAt()));
        n.put("finishedAt", time(w.finishedAt()));
        ArrayNode steps = n.putArray("steps");
        for (WorkflowInfo.Step s : w.steps()) {
            ObjectNode step = steps.addObject();
            step.put("name", s.name());
            ArrayNode dependsOn = step.putArray("dependsOn");
            s.dependsOn().forEach(dependsOn::add);
            ArrayNode satisfied = step.putArray("satisfied");
            s.satisfied().forEach(satisfied::add);
            step.set("job", job(s.job()));
        }
        return n;
    }

    private static ObjectNode error(JobError e, boolean withStack) {
        ObjectNode n = NODES.objectNode();
        n.put("at", time(e.at()));
        n.put("attempt", e.attempt());
        n.put("class", e.errorClass());
        n.put("message", e.message());
        if (withStack) {
            n.put("stack", e.stack());
        }
        return n;
    }

    /** The stored args as JSON; text that does not parse (never from jsonb) is kept as a string rather than lost. */
    private static JsonNode args(String json) {
        try {
            return ARGS.readTree(json);
        } catch (JsonProcessingException e) {
            return NODES.textNode(json);
        }
    }

    private static String time(Instant t) {
        return t == null ? null : t.toString();
    }
}
