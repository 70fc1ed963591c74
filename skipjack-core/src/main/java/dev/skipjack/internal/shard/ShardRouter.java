package dev.skipjack.internal.shard;

import dev.skipjack.InvalidWorkflowException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chooses a shard for a job: its queue's pin, else the shard its key hashes to, else the next
 * shard in turn. Keys are placed by rendezvous (highest random weight) hashing over the shard
 * names: every producer computes the same shard from the names alone, whatever order the shards
 * were added in, and adding a shard moves only the keys that now score highest on it.
 */
public final class ShardRouter {

    /** One workflow step as routing sees it: its queue and its key (null when it has none). */
    public record Step(String name, String queue, String key) {
    }

    private final List<String> shards;
    private final long[] shardSeeds;
    private final Map<String, String> pins;
    private final AtomicLong turn = new AtomicLong();

    public ShardRouter(List<String> shards, Map<String, String> pins) {
        this.shards = List.copyOf(shards);
        this.pins = Map.copyOf(pins);
        this.shardSeeds = new long[shards.size()];
        for (int i = 0; i < shardSeeds.length; i++) {
            shardSeeds[i] = hash64(shards.get(i));
        }
    }

    /** The shard of a job in {@code queue} with {@code key} (null: none). */
    public String route(String queue, String key) {
        String pinned = queue == null ? null : pins.get(queue);
        if (pinned != null) {
            return pinned;
        }
        if (key != null) {
            return shardOfKey(key);
        }
        return nextInTurn();
    }

    private String nextInTurn() {
        return shards.get((int) Math.floorMod(turn.getAndIncrement(), (long) shards.size()));
    }

    /** The shard a key hashes to, ignoring pins. */
    public String shardOfKey(String key) {
        long keyHash = hash64(key);
        int best = 0;
        long bestScore = Long.MIN_VALUE;
        for (int i = 0; i < shardSeeds.length; i++) {
            long score = mix(keyHash ^ shardSeeds[i]);
            if (score > bestScore) {
                bestScore = score;
                best = i;
            }
        }
        return shards.get(best);
    }

    /**
     * The one shard a workflow's steps all go to: where its pinned queues and its keys send them,
     * which must agree; the next shard in turn when nothing decides.
     *
     * @throws InvalidWorkflowException ({@code SPANS_SHARDS}) when two steps need different shards
     */
    public String routeTogether(String workflow, List<Step> steps) {
        String chosen = null;
        Step chooser = null;
        for (Step step : steps) {
            String pinned = pins.get(step.queue());
            List<String> needs = new ArrayList<>(2);
            if (pinned != null) {
                needs.add(pinned);
            }
            if (step.key() != null) {
                needs.add(shardOfKey(step.key()));
            }
            for (String shard : needs) {
                if (chosen == null) {
                    chosen = shard;
                    chooser = step;
                } else if (!chosen.equals(shard)) {
                    throw new InvalidWorkflowException(InvalidWorkflowException.Problem.SPANS_SHARDS,
                            chooser == step ? List.of(step.name()) : List.of(chooser.name(), step.name()),
                            "workflow '" + workflow + "' would span shards: step '" + chooser.name() + "' goes to shard '"
                                    + chosen + "' and step '" + step.name() + "' to shard '" + shard + "'"
                                    + " (by queue pin or key); a workflow lives in one database, so pin its queues"
                                    + " to one shard or give its keyed steps keys that meet");
                }
            }
        }
        return chosen != null ? chosen : nextInTurn();
    }

    /** A 64-bit FNV-1a hash of the text's UTF-8 bytes: stable across JVMs and versions, unlike hashCode's spread. */
    static long hash64(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finalizer: spreads the combined hash so scores compare fairly. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
