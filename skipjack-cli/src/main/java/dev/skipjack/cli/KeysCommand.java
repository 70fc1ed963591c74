package dev.skipjack.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skipjack.ConcurrencyKeyInfo;
import dev.skipjack.SkipjackAdmin;
import dev.skipjack.cli.output.JsonOutput;
import dev.skipjack.cli.output.Table;
import dev.skipjack.internal.json.JobJson;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * {@code skipjack keys}: the concurrency limits and sequence keys in use (F-12, F-13), each with its
 * usage, marking the full ones and the ordered keys blocked by a discarded job.
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = {"Lists the concurrency and sequence keys in use: limit, slots held, jobs running and waiting,",
                "and the job holding the key. Marks full keys, and ordered keys blocked by a discarded job",
                "(retry or delete that job to let the rest run: skipjack jobs retry|delete ID).",
                "Keys are stored as kind:<kind>[/<partition>] (a kind's limit), key:<key> (an enqueue's",
                "concurrency key) and seq:<key> (a sequence key). With --shard, every shard's keys, each with its shard",
                "(a key lives on one shard)."})
public final class KeysCommand extends ReadCommand {

    @Override
    int print(ShardedConnection db, PrintWriter out) {
        Map<String, List<ConcurrencyKeyInfo>> perShard = db.admin().concurrencyKeys();
        ArrayNode listed = JsonOutput.MAPPER.createArrayNode();
        // Each ordered key's holder is looked up on the key's own shard.
        perShard.forEach((shard, keys) -> JobJson.concurrencyKeys(keys, db.admin().shard(shard)::job)
                .forEach(k -> listed.add(db.sharded() ? ((ObjectNode) k).put("shard", shard) : k)));
        if (json) {
            JsonOutput.print(out, listed);
        } else if (listed.isEmpty()) {
            out.println("No concurrency or sequence key is in use.");
        } else {
            Table t = db.sharded() ? new Table("SHARD", "KEY", "LIMIT", "ORDERED", "HOLDING", "RUNNING", "WAITING", "HELD BY",
                    "STATUS").right(2, 4, 5, 6, 7)
                    : new Table("KEY", "LIMIT", "ORDERED", "HOLDING", "RUNNING", "WAITING", "HELD BY", "STATUS").right(1, 3, 4, 5, 6);
            int full = 0;
            int blocked = 0;
            for (JsonNode k : listed) {
                String status = status(k);
                full += k.get("full").asBoolean() && !k.get("blocked").asBoolean() ? 1 : 0;
                blocked += k.get("blocked").asBoolean() ? 1 : 0;
                // A rate limit reads "100 per PT1M": that many starts per period, not slots.
                String limit = k.get("periodMillis").isNull() ? String.valueOf(k.get("max").asInt())
                        : k.get("max").asInt() + " per " + java.time.Duration.ofMillis(k.get("periodMillis").asLong());
                Object[] row = {k.get("key").asText(), limit, k.get("ordered").asBoolean() ? "yes" : "no",
                        k.get("holding").asLong() + "/" + k.get("max").asInt(), k.get("running").asLong(),
                        k.get("waiting").asLong(), k.get("heldBy").isNull() ? "-" : k.get("heldBy").asLong(), status};
                t.row(db.sharded() ? Table.prepend(k.get("shard").asText(), row) : row);
            }
            t.print(out, Table.terminalWidth());
            out.printf("%d key(s)%s: %d full, %d blocked%n", listed.size(),
                    perShard.values().stream().anyMatch(keys -> keys.size() >= SkipjackAdmin.MAX_CONCURRENCY_KEYS_LISTED)
                            ? " (the first " + SkipjackAdmin.MAX_CONCURRENCY_KEYS_LISTED + " by key of a shard)" : "",
                    full, blocked);
        }
        return ExitCode.OK;
    }

    /**
     * {@code blocked by job N (discarded)} for an ordered key held by a discarded job, {@code full}
     * when every slot is held (its waiting jobs wait for a slot), else {@code -}. For an ordered key
     * held by a job that is not running (retryable, snoozed), its state is added: the key waits on it.
     */
    static String status(JsonNode k) {
        if (k.get("blocked").asBoolean()) {
            return "blocked by job " + k.get("heldBy").asLong() + " (discarded)";
        }
        String holder = k.get("heldByState").isNull() ? null : k.get("heldByState").asText();
        if (holder != null && !holder.equals("running") && !holder.equals("available")) {
            return "full: job " + k.get("heldBy").asLong() + " is " + holder;
        }
        return k.get("full").asBoolean() ? "full" : "-";
    }
}
