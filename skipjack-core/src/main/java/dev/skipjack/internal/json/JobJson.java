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
import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobPage;
import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;

import java.time.Instant;
import java.util.List;

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
        n.put("errorCount", j.errors().size());
        // Without its stack: a page of fifty jobs should not carry fifty stack traces.
        n.set("lastError", j.errors().isEmpty() ? NODES.nullNode() : error(j.errors().get(j.errors().size() - 1), false));
        return n;
    }

    /** A single job as shown on its own: {@link #job} plus the whole error history with stacks. */
    public static ObjectNode jobWithErrors(JobInfo j) {
        ObjectNode n = job(j);
        ArrayNode errors = n.putArray("errors");
        j.errors().forEach(e -> errors.add(error(e, true)));
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
        return n;
    }

    public static ArrayNode queues(List<QueueInfo> queues) {
        ArrayNode a = NODES.arrayNode();
        queues.forEach(q -> a.add(queue(q)));
        return a;
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
