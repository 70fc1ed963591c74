package dev.skipjack.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.JobError;
import dev.skipjack.JobInfo;
import dev.skipjack.JobPage;
import dev.skipjack.JobState;
import dev.skipjack.QueueInfo;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;

/** The {@code --json} shapes of jobs, pages and queues: stable field names, times as ISO-8601 strings. */
public final class JsonOutput {

    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonOutput() {
    }

    public static ObjectNode job(JobInfo j, boolean withErrors) {
        ObjectNode n = MAPPER.createObjectNode();
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
        n.put("errorCount", j.errors().size());
        if (withErrors) {
            ArrayNode errors = n.putArray("errors");
            for (JobError e : j.errors()) {
                ObjectNode en = errors.addObject();
                en.put("at", time(e.at()));
                en.put("attempt", e.attempt());
                en.put("class", e.errorClass());
                en.put("message", e.message());
                en.put("stack", e.stack());
            }
        }
        return n;
    }

    public static ObjectNode page(JobPage page) {
        ObjectNode n = MAPPER.createObjectNode();
        ArrayNode jobs = n.putArray("jobs");
        page.jobs().forEach(j -> jobs.add(job(j, false)));
        if (page.nextCursor() == null) {
            n.putNull("nextCursor");
        } else {
            n.put("nextCursor", page.nextCursor());
        }
        return n;
    }

    public static ArrayNode queues(List<QueueInfo> queues) {
        ArrayNode a = MAPPER.createArrayNode();
        for (QueueInfo q : queues) {
            ObjectNode n = a.addObject();
            n.put("name", q.name());
            n.put("paused", q.paused());
            n.put("pausedAt", time(q.pausedAt()));
            ObjectNode counts = n.putObject("counts");
            for (JobState s : JobState.values()) {
                counts.put(s.dbValue(), q.count(s));
            }
            n.put("total", q.total());
        }
        return a;
    }

    public static void print(PrintWriter out, JsonNode node) {
        try {
            out.println(MAPPER.writeValueAsString(node));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode args(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            return MAPPER.getNodeFactory().textNode(json);
        }
    }

    private static String time(Instant t) {
        return t == null ? null : t.toString();
    }
}
