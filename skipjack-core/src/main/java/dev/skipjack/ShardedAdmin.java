package dev.skipjack;

import dev.skipjack.ShardedSkipjack.ShardJobId;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link SkipjackAdmin} over several databases (shards): what the CLI's {@code --shard} and the
 * dashboard show and do, so neither aggregates by hand. Get one from {@link ShardedSkipjack#admin()},
 * or build one from admins with {@link #of(Map)} (the CLI does, one per database URL); a single
 * database is a composite of one shard.
 *
 * <p>Job ids are unique per database only, so a job is addressed by its shard and id
 * ({@link ShardJobId}, written {@code shard:id}, see {@link #address(String)}): reading it or acting
 * on it goes to that shard alone. What the composite answers:
 * <ul>
 *   <li>counts per queue and state, and throughput: summed over the shards ({@link #queues()},
 *       {@link #throughput}); each shard's own in {@link #queuesPerShard()};</li>
 *   <li>job lists: {@link #jobs(JobQuery, String)} merges the shards' pages, see there;</li>
 *   <li>bulk actions on a filter: on every shard, the changed counts summed;</li>
 *   <li>pause and resume: on every shard, so a queue pauses wherever its jobs are;</li>
 *   <li>nodes, cron schedules and concurrency keys: listed per shard (each shard has its own nodes,
 *       schedules and keys; a key's limit holds on its shard).</li>
 * </ul>
 * Shards are asked one after another; a shard that fails fails the call (the message names it).
 */
public final class ShardedAdmin {

    /** A job and the shard it lives on. */
    public record ShardJob(String shard, JobInfo job) {

        public ShardJob {
            Objects.requireNonNull(shard, "shard");
            Objects.requireNonNull(job, "job");
        }

        public ShardJobId address() {
            return new ShardJobId(shard, job.id());
        }
    }

    /**
     * One page of a merged job list.
     *
     * @param jobs       at most the query's limit, newest first over all shards
     * @param nextCursor pass to {@link #jobs(JobQuery, String)} for the next page; null on the last page
     */
    public record ShardJobPage(List<ShardJob> jobs, String nextCursor) {

        public ShardJobPage {
            jobs = List.copyOf(jobs);
        }

        public boolean hasMore() {
            return nextCursor != null;
        }
    }

    /** A shard in a cursor whose jobs have all been listed. */
    private static final long DONE = 0;
    private static final Pattern ADDRESS = Pattern.compile("(?:([^:]+):)?(\\d{1,18})");
    private static final Pattern CURSOR_ENTRY = Pattern.compile("([^:,]+):(\\d{1,18})");

    private final Map<String, SkipjackAdmin> shards;

    private ShardedAdmin(Map<String, SkipjackAdmin> shards) {
        this.shards = Collections.unmodifiableMap(shards);
    }

    /**
     * A composite over these admins, by shard name, in the map's order (listings and ties follow it).
     *
     * @throws InvalidConfigurationException when there is none, or a name is blank or holds ':' or ','
     */
    public static ShardedAdmin of(Map<String, SkipjackAdmin> shards) {
        Objects.requireNonNull(shards, "shards");
        if (shards.isEmpty()) {
            throw new InvalidConfigurationException("shard", "a sharded admin needs at least one shard");
        }
        Map<String, SkipjackAdmin> copy = new LinkedHashMap<>();
        shards.forEach((name, admin) -> {
            if (name == null || name.isBlank() || name.contains(":") || name.contains(",")) {
                throw new InvalidConfigurationException("shard", "invalid shard name " + Limits.quote(name)
                        + ": it must not be blank nor contain ':' or ','");
            }
            copy.put(name, Objects.requireNonNull(admin, "admin of shard " + name));
        });
        return new ShardedAdmin(copy);
    }

    /** The shard names, in order. */
    public List<String> shardNames() {
        return List.copyOf(shards.keySet());
    }

    /**
     * One shard's admin.
     *
     * @throws InvalidOptionException for a name that is not one of {@link #shardNames()}
     */
    public SkipjackAdmin shard(String name) {
        SkipjackAdmin admin = shards.get(name);
        if (admin == null) {
            throw new InvalidOptionException("no shard named " + Limits.quote(name) + "; the shards are " + shards.keySet());
        }
        return admin;
    }

    /**
     * A job's (or workflow's) address from text: {@code shard:id}, or a bare {@code id} when there is
     * only one shard.
     *
     * @throws InvalidOptionException for an unknown shard, a bare id with several shards, or text
     *                                that is neither form
     */
    public ShardJobId address(String text) {
        Matcher m = ADDRESS.matcher(text == null ? "" : text.trim());
        if (!m.matches() || Long.parseLong(m.group(2)) < 1) {
            throw new InvalidOptionException("job address " + Limits.quote(text) + " is not SHARD:ID"
                    + (shards.size() == 1 ? " or ID" : "") + " with a positive ID; the shards are " + shards.keySet());
        }
        long id = Long.parseLong(m.group(2));
        if (m.group(1) == null) {
            if (shards.size() > 1) {
                throw new InvalidOptionException("job id " + id + " is unique on its shard only: give it as SHARD:" + id
                        + ", one of " + shards.keySet().stream().map(s -> s + ":" + id).toList());
            }
            return new ShardJobId(shards.keySet().iterator().next(), id);
        }
        shard(m.group(1));
        return new ShardJobId(m.group(1), id);
    }

    /** How {@code address} is written for people: {@code shard:id}, or the bare id with one shard (as on one database). */
    public String format(ShardJobId address) {
        return shards.size() == 1 ? Long.toString(address.id()) : address.toString();
    }

    // ---------------------------------------------------------------- find

    /**
     * One page of jobs matching {@code query} over every shard. Each shard lists its jobs as on one
     * database (newest id first); the pages are merged newest {@code createdAt} first (ties in shard
     * order), so a shard's own jobs keep their order. {@code cursor} is the previous page's
     * {@link ShardJobPage#nextCursor()}, or null for the first page; leave the query's own
     * {@link JobQuery#after} unset.
     *
     * <p>The cursor holds a keyset position per shard ({@code s1:120,s2:0,...}: continue below id
     * 120 on s1, s2 listed to its end; a shard not named starts at its newest), so paging never
     * skips nor repeats a job, however the shards' pages interleave, and every page costs the same
     * however deep it is: each shard is asked for at most one page. With one shard, the cursor is the
     * bare id, the same as {@link SkipjackAdmin#jobs}'s.
     *
     * @throws InvalidOptionException for a cursor this composite did not make (e.g. naming an unknown shard)
     */
    public ShardJobPage jobs(JobQuery query, String cursor) {
        Objects.requireNonNull(query, "query");
        if (query.after() != null) {
            throw new InvalidOptionException("give the page position as the cursor, not as the query's after()");
        }
        Map<String, Long> positions = parseCursor(cursor);
        List<Head> heads = new ArrayList<>();
        for (String shard : shards.keySet()) {
            Long position = positions.get(shard);
            if (position != null && position == DONE) {
                continue;
            }
            JobPage page = shards.get(shard).jobs(query.after(position));
            heads.add(new Head(shard, page));
        }
        List<ShardJob> merged = new ArrayList<>(query.limit());
        Comparator<Head> newestFirst = Comparator.comparing((Head h) -> h.peek().createdAt(), Comparator.reverseOrder());
        while (merged.size() < query.limit()) {
            Head next = heads.stream().filter(Head::hasNext).min(newestFirst).orElse(null);
            if (next == null) {
                break;
            }
            merged.add(new ShardJob(next.shard, next.take()));
        }
        for (Head h : heads) {
            if (!h.hasNext() && !h.page.hasMore()) {
                positions.put(h.shard, DONE);
            } else if (h.taken > 0) {
                positions.put(h.shard, h.page.jobs().get(h.taken - 1).id());
            }
        }
        boolean more = shards.keySet().stream().anyMatch(s -> !Objects.equals(positions.get(s), DONE));
        return new ShardJobPage(merged, more ? formatCursor(positions) : null);
    }

    /** One shard's page as the merge consumes it. */
    private static final class Head {
        final String shard;
        final JobPage page;
        int taken;

        Head(String shard, JobPage page) {
            this.shard = shard;
            this.page = page;
        }

        boolean hasNext() {
            return taken < page.jobs().size();
        }

        JobInfo peek() {
            return page.jobs().get(taken);
        }

        JobInfo take() {
            return page.jobs().get(taken++);
        }
    }

    private Map<String, Long> parseCursor(String cursor) {
        Map<String, Long> positions = new LinkedHashMap<>();
        if (cursor == null || cursor.isBlank()) {
            return positions;
        }
        String text = cursor.trim();
        if (shards.size() == 1) {
            if (!text.matches("\\d{1,18}") || Long.parseLong(text) < 1) {
                throw new InvalidOptionException("page cursor must be a positive job id, got " + Limits.quote(cursor));
            }
            positions.put(shards.keySet().iterator().next(), Long.parseLong(text));
            return positions;
        }
        for (String entry : text.split(",", -1)) {
            Matcher m = CURSOR_ENTRY.matcher(entry);
            if (!m.matches() || !shards.containsKey(m.group(1))) {
                throw new InvalidOptionException("page cursor " + Limits.quote(cursor) + " was not made by this listing"
                        + " (expected SHARD:ID,... over the shards " + shards.keySet() + ")");
            }
            positions.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return positions;
    }

    private String formatCursor(Map<String, Long> positions) {
        if (shards.size() == 1) {
            return Long.toString(positions.values().iterator().next());
        }
        StringBuilder out = new StringBuilder();
        for (String shard : shards.keySet()) {
            Long position = positions.get(shard);
            if (position != null) {
                out.append(out.length() == 0 ? "" : ",").append(shard).append(':').append(position);
            }
        }
        return out.toString();
    }

    /** The job at {@code address}, from its shard; empty when that shard has no such job (any more). */
    public Optional<ShardJob> job(ShardJobId address) {
        return shard(address.shard()).job(address.id()).map(j -> new ShardJob(address.shard(), j));
    }

    /** What the job at {@code address} reported, as {@link SkipjackAdmin#jobLog}. */
    public JobLog jobLog(ShardJobId address) {
        return shard(address.shard()).jobLog(address.id());
    }

    /** The workflow {@code address} names (workflow ids are per shard too), as {@link SkipjackAdmin#workflow}. */
    public Optional<WorkflowInfo> workflow(ShardJobId address) {
        return shard(address.shard()).workflow(address.id());
    }

    // ---------------------------------------------------------------- count

    /** Each shard's {@link SkipjackAdmin#queues()}, by shard. */
    public Map<String, List<QueueInfo>> queuesPerShard() {
        Map<String, List<QueueInfo>> out = new LinkedHashMap<>();
        shards.forEach((name, admin) -> out.put(name, admin.queues()));
        return out;
    }

    /** The queues of every shard, one row per name: see {@link #sumQueues}. */
    public List<QueueInfo> queues() {
        return sumQueues(queuesPerShard().values());
    }

    /**
     * One row per queue over several shards: counts summed, the nodes serving it joined, paused
     * since the earliest pause when paused on any (a queue paused on one shard only is still one an
     * operator should look at).
     */
    public static List<QueueInfo> sumQueues(Iterable<List<QueueInfo>> perShard) {
        Map<String, QueueInfo> merged = new TreeMap<>();
        for (List<QueueInfo> queues : perShard) {
            for (QueueInfo q : queues) {
                merged.merge(q.name(), q, (a, b) -> {
                    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
                    a.counts().forEach((state, n) -> counts.merge(state, n, Long::sum));
                    b.counts().forEach((state, n) -> counts.merge(state, n, Long::sum));
                    Set<String> servedBy = new LinkedHashSet<>(a.servedBy());
                    servedBy.addAll(b.servedBy());
                    Instant pausedAt = a.pausedAt() == null ? b.pausedAt()
                            : b.pausedAt() == null || a.pausedAt().isBefore(b.pausedAt()) ? a.pausedAt() : b.pausedAt();
                    return new QueueInfo(a.name(), pausedAt, counts, List.copyOf(servedBy));
                });
            }
        }
        return List.copyOf(merged.values());
    }

    /** Jobs per state over every shard; every state is present. */
    public Map<JobState, Long> countByState() {
        Map<JobState, Long> total = new EnumMap<>(JobState.class);
        shards.values().forEach(admin -> admin.countByState().forEach((s, n) -> total.merge(s, n, Long::sum)));
        return total;
    }

    /**
     * Jobs finished per bucket over every shard, as {@link SkipjackAdmin#throughput}; buckets are
     * added position by position (each shard buckets the same window on its own clock).
     */
    public List<ThroughputBucket> throughput(Duration window, Duration bucket) {
        List<ThroughputBucket> sum = null;
        for (SkipjackAdmin admin : shards.values()) {
            List<ThroughputBucket> more = admin.throughput(window, bucket);
            if (sum == null) {
                sum = more;
                continue;
            }
            List<ThroughputBucket> added = new ArrayList<>(sum.size());
            for (int i = 0; i < sum.size(); i++) {
                ThroughputBucket a = sum.get(i);
                ThroughputBucket b = i < more.size() ? more.get(i) : new ThroughputBucket(a.start(), 0, 0, 0);
                added.add(new ThroughputBucket(a.start(), a.completed() + b.completed(), a.discarded() + b.discarded(),
                        a.cancelled() + b.cancelled()));
            }
            sum = added;
        }
        return sum;
    }

    /** Each shard's running nodes (a node serves the shard it was started on). */
    public Map<String, List<NodeInfo>> nodes() {
        Map<String, List<NodeInfo>> out = new LinkedHashMap<>();
        shards.forEach((name, admin) -> out.put(name, admin.nodes()));
        return out;
    }

    /** Each shard's cron schedules (a schedule fires on the shard it is stored in). */
    public Map<String, List<ScheduleInfo>> schedules() {
        Map<String, List<ScheduleInfo>> out = new LinkedHashMap<>();
        shards.forEach((name, admin) -> out.put(name, admin.schedules()));
        return out;
    }

    /** Each shard's concurrency and sequence keys in use (a key lives on one shard; see {@link ShardedSkipjack}). */
    public Map<String, List<ConcurrencyKeyInfo>> concurrencyKeys() {
        Map<String, List<ConcurrencyKeyInfo>> out = new LinkedHashMap<>();
        shards.forEach((name, admin) -> out.put(name, admin.concurrencyKeys()));
        return out;
    }

    // ---------------------------------------------------------------- act

    /** Applies {@code action} to the job at {@code address}, on its shard only; as {@link SkipjackAdmin#act(JobAction, long)}. */
    public boolean act(JobAction action, ShardJobId address) {
        return shard(address.shard()).act(action, address.id());
    }

    /**
     * Applies {@code action} to every job matching {@code filter} on every shard, one shard after
     * another; returns how many changed in all. {@code progress} hears the running total over all
     * shards. A shard that fails stops the walk: the shards before it have acted.
     */
    public long act(JobAction action, JobQuery filter, LongConsumer progress) {
        return fanOut((admin, before) -> admin.act(action, filter, n -> progress.accept(before + n)));
    }

    /** Snoozes the job at {@code address}, on its shard only; as {@link SkipjackAdmin#snooze(long, Duration)}. */
    public boolean snooze(ShardJobId address, Duration delay) {
        return shard(address.shard()).snooze(address.id(), delay);
    }

    /** Snoozes every matching job on every shard; returns how many changed in all. */
    public long snooze(JobQuery filter, Duration delay, LongConsumer progress) {
        return fanOut((admin, before) -> {
            long n = admin.snooze(filter, delay);
            progress.accept(before + n);
            return n;
        });
    }

    private interface ShardAction {
        long apply(SkipjackAdmin admin, long changedBefore);
    }

    private long fanOut(ShardAction action) {
        long total = 0;
        for (Map.Entry<String, SkipjackAdmin> shard : shards.entrySet()) {
            try {
                total += action.apply(shard.getValue(), total);
            } catch (InvalidJobException e) {
                throw e; // a bad filter or delay, refused before anything changed
            } catch (SkipjackException e) {
                if (shards.size() == 1) {
                    throw e;
                }
                throw new SkipjackException("on shard '" + shard.getKey() + "' (after " + total
                        + " jobs changed on the shards before it): " + e.getMessage(), e);
            }
        }
        return total;
    }

    /** Pauses {@code queue} on every shard, as {@link SkipjackAdmin#pause}. */
    public void pause(String queue) {
        shards.values().forEach(admin -> admin.pause(queue));
    }

    /** Resumes {@code queue} on every shard, as {@link SkipjackAdmin#resume}. */
    public void resume(String queue) {
        shards.values().forEach(admin -> admin.resume(queue));
    }
}
