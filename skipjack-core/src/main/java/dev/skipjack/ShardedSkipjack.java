package dev.skipjack;

import dev.skipjack.internal.shard.ShardRouter;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Skipjack over several databases ("shards"), for when one database is not enough: one
 * {@link Skipjack} client per shard, all configured alike, and a routing rule that sends each job
 * to one shard. Producers enqueue through it; {@link #start()} starts workers on every shard.
 *
 * <p>Where a job goes, in this order:
 * <ol>
 *   <li>its queue is {@linkplain Builder#pinQueue pinned} to a shard: there;</li>
 *   <li>it has a key that a guarantee is kept on, its concurrency, rate or sequence key (a kind's
 *       {@code limitedTo}/{@code rateLimitedTo}, {@code withConcurrencyKey}, {@code withSequenceKey}, ...),
 *       else its unique key: the shard the key hashes to (rendezvous hashing over the shard names, so
 *       every producer agrees, and adding a shard moves only the keys that now hash to it);</li>
 *   <li>otherwise the shards in turn, spreading the load.</li>
 * </ol>
 * So all jobs of one key meet on one database, where Skipjack keeps its promise for that key:
 * unique jobs, concurrency and rate limits (a kind-wide limit is one key, so all that kind's jobs
 * share a shard), ordered keys. Every other guarantee (exactly-once in transactional mode, leases,
 * rescue, retries) is per job and holds on each shard as on one database.
 *
 * <p>What cannot hold across shards, and how this class answers:
 * <ul>
 *   <li>A workflow is enqueued whole on one shard: its pinned queues, or else its first keyed
 *       step's key, choose it. One whose steps would need two shards (queues pinned apart, keys that
 *       hash apart, a key on a pinned queue's other shard) is refused with
 *       {@link InvalidWorkflowException}: fan-in needs its parents' completions in one database.</li>
 *   <li>A key used in queues pinned to different shards, or in a pinned and an unpinned queue,
 *       is split between them and its guarantee holds per shard only: pin a keyed kind's queues
 *       together, or not at all. Jobs sharing a unique key must share their concurrency key too.</li>
 *   <li>Enqueueing in the caller's transaction needs the caller's connection to be on the job's
 *       shard: ask {@link #shardFor(JobRequest)} which, and enqueue through {@link #shard(String)}.</li>
 *   <li>Cron schedules fire once per tick per database: declare them on one shard's client
 *       ({@code shard(name).schedule(...)}), not in the shared configuration.</li>
 *   <li>Changing the shard list re-routes some keys: let keyed jobs drain first.</li>
 * </ul>
 * Operators see every shard at once through {@link #admin()} (the CLI's {@code --shard}, the dashboard).
 */
public final class ShardedSkipjack implements AutoCloseable {

    /** A job's address: the shard it was enqueued on and its id there. */
    public record ShardJobId(String shard, long id) {

        public ShardJobId {
            Objects.requireNonNull(shard, "shard");
        }

        @Override
        public String toString() {
            return shard + ":" + id;
        }
    }

    private final Map<String, Skipjack> shards;
    private final ShardRouter router;

    private ShardedSkipjack(Map<String, Skipjack> shards, Map<String, String> pins) {
        this.shards = Collections.unmodifiableMap(shards);
        this.router = new ShardRouter(List.copyOf(shards.keySet()), pins);
    }

    /** A builder; {@code configure} is applied to every shard's {@link Skipjack.Builder} (queues, kinds, handlers, ...). */
    public static Builder builder(UnaryOperator<Skipjack.Builder> configure) {
        return new Builder(configure);
    }

    /** The shard names, in the order they were added. */
    public List<String> shardNames() {
        return List.copyOf(shards.keySet());
    }

    /** The client of one shard, for what goes to it directly (an enqueue in a transaction on it, a cron schedule, admin). */
    public Skipjack shard(String name) {
        Skipjack client = shards.get(name);
        if (client == null) {
            throw new IllegalArgumentException("no shard named '" + name + "'; the shards are " + shards.keySet());
        }
        return client;
    }

    /**
     * The shard {@code request} goes to, by the rule above. For a request with no key on an
     * unpinned queue, each call takes the next shard in turn; a request checked here is checked as
     * its enqueue would check it.
     */
    public String shardFor(JobRequest request) {
        Objects.requireNonNull(request, "request");
        return router.route(request.options().queue(), keyOf(request));
    }

    /** Enqueues one job on its shard (see the class comment); throws as {@link Skipjack#enqueue(JobRequest)}. */
    public ShardJobId enqueue(JobRequest request) {
        String shard = shardFor(request);
        return new ShardJobId(shard, shards.get(shard).enqueue(request));
    }

    /** As {@link #enqueue(JobRequest)}. */
    public <T> ShardJobId enqueue(JobKind<T> kind, T args) {
        return enqueue(JobRequest.of(kind, args));
    }

    /** As {@link #enqueue(JobRequest)}. */
    public <T> ShardJobId enqueue(JobKind<T> kind, T args, EnqueueOptions options) {
        return enqueue(JobRequest.of(kind, args, options));
    }

    /**
     * Enqueues many jobs, each on its shard, with one multi-row insert transaction per shard;
     * returns their addresses in request order. Every request is checked before anything is
     * inserted, but the shards commit separately: when one shard's insert fails, the shards before
     * it in {@link #shardNames()} order have committed their part (the exception says which).
     */
    public List<ShardJobId> enqueueAll(List<JobRequest> requests) {
        Objects.requireNonNull(requests, "requests");
        Map<String, List<Integer>> positions = new LinkedHashMap<>();
        shards.keySet().forEach(name -> positions.put(name, new ArrayList<>()));
        for (int i = 0; i < requests.size(); i++) {
            positions.get(shardFor(Objects.requireNonNull(requests.get(i), "request"))).add(i);
        }
        ShardJobId[] ids = new ShardJobId[requests.size()];
        List<String> committed = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> shard : positions.entrySet()) {
            if (shard.getValue().isEmpty()) {
                continue;
            }
            List<JobRequest> batch = shard.getValue().stream().map(requests::get).toList();
            List<Long> inserted;
            try {
                inserted = shards.get(shard.getKey()).enqueueAll(batch);
            } catch (SkipjackException e) {
                throw new SkipjackException("enqueue on shard '" + shard.getKey() + "' failed"
                        + (committed.isEmpty() ? "; nothing was enqueued" : "; shards " + committed
                        + " had already committed their jobs") + ": " + e.getMessage(), e);
            }
            for (int j = 0; j < inserted.size(); j++) {
                ids[shard.getValue().get(j)] = new ShardJobId(shard.getKey(), inserted.get(j));
            }
            committed.add(shard.getKey());
        }
        return List.of(ids);
    }

    /**
     * Enqueues a workflow whole on one shard; returns that shard's answer and its name.
     *
     * @throws InvalidWorkflowException when its steps would need more than one shard
     */
    public ShardedWorkflow enqueueWorkflow(Workflow workflow) {
        Objects.requireNonNull(workflow, "workflow");
        List<ShardRouter.Step> steps = new ArrayList<>();
        for (Workflow.Step step : workflow.inDependencyOrder()) {
            steps.add(new ShardRouter.Step(step.name(), step.request().options().queue(), keyOf(step.request())));
        }
        String shard = router.routeTogether(workflow.name(), steps);
        return new ShardedWorkflow(shard, shards.get(shard).enqueueWorkflow(workflow));
    }

    /** A workflow enqueued by {@link #enqueueWorkflow(Workflow)}: the shard it lives on and its ids there. */
    public record ShardedWorkflow(String shard, EnqueuedWorkflow workflow) {
    }

    /** Enqueues one job on {@code shard} in the caller's transaction on {@code connection}, a connection to that shard. */
    public long enqueue(String shard, Connection connection, JobRequest request) {
        return shard(shard).enqueueAll(connection, List.of(request)).get(0);
    }

    /**
     * The operators' view over every shard: counts summed, job lists merged, jobs addressed by
     * shard and id, actions routed to the owning shard or fanned out (see {@link ShardedAdmin}).
     */
    public ShardedAdmin admin() {
        Map<String, SkipjackAdmin> admins = new LinkedHashMap<>();
        shards.forEach((name, client) -> admins.put(name, client.admin()));
        return ShardedAdmin.of(admins);
    }

    /** A job by its address; empty when its shard has no such job (any more). */
    public Optional<JobInfo> find(ShardJobId id) {
        return shard(id.shard()).find(id.id());
    }

    /** The jobs of every shard by state, summed. */
    public Map<JobState, Long> countByState() {
        Map<JobState, Long> total = new EnumMap<>(JobState.class);
        for (Skipjack client : shards.values()) {
            client.countByState().forEach((state, count) -> total.merge(state, count, Long::sum));
        }
        return total;
    }

    /** Migrates every shard; returns the versions applied, per shard. */
    public Map<String, List<Integer>> migrate() {
        Map<String, List<Integer>> applied = new LinkedHashMap<>();
        shards.forEach((name, client) -> applied.put(name, client.migrate()));
        return applied;
    }

    /** Starts workers on every shard (each its own queues, leases, rescue and maintenance leader). */
    public void start() {
        shards.values().forEach(Skipjack::start);
    }

    /** Stops every shard's workers, as {@link Skipjack#close()}; the first failure is thrown after all were asked. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (Skipjack client : shards.values()) {
            try {
                client.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The key the routing keeps together; validates the request as its enqueue would (the first shard's client decides). */
    private String keyOf(JobRequest request) {
        return shards.values().iterator().next().routingKey(request);
    }

    /** Builds a {@link ShardedSkipjack}: shards by name, queue pins. */
    public static final class Builder {

        private final UnaryOperator<Skipjack.Builder> configure;
        private final Map<String, DataSource> dataSources = new LinkedHashMap<>();
        private final Map<String, String> pins = new LinkedHashMap<>();

        private Builder(UnaryOperator<Skipjack.Builder> configure) {
            this.configure = Objects.requireNonNull(configure, "configure");
        }

        /**
         * Adds a shard: a database, and a name that routing hashes and job addresses carry. Renaming a
         * shard re-routes keys as removing and adding one would.
         *
         * @throws InvalidConfigurationException for a malformed or repeated name, or a null DataSource
         */
        public Builder shard(String name, DataSource dataSource) {
            if (name == null || !Limits.QUEUE_NAME.matcher(name).matches()) {
                throw new InvalidConfigurationException("shard", "invalid shard name " + Limits.quote(name)
                        + ": use 1-64 of a-z, 0-9, '_', '.', '-', starting with a letter or digit");
            }
            if (dataSources.containsKey(name)) {
                throw new InvalidConfigurationException("shard", "shard '" + name + "' is added twice");
            }
            if (dataSource == null) {
                throw new InvalidConfigurationException("shard", "the DataSource of shard '" + name + "' must not be null");
            }
            dataSources.put(name, dataSource);
            return this;
        }

        /** Sends every job of {@code queue} to {@code shard}, whatever its keys (see the class comment). */
        public Builder pinQueue(String queue, String shard) {
            if (queue == null || !Limits.QUEUE_NAME.matcher(queue).matches()) {
                throw new InvalidConfigurationException("pinQueue", "invalid queue name " + Limits.quote(queue));
            }
            if (pins.containsKey(queue)) {
                throw new InvalidConfigurationException("pinQueue", "queue '" + queue + "' is pinned twice");
            }
            pins.put(queue, Objects.requireNonNull(shard, "shard"));
            return this;
        }

        /**
         * Builds one client per shard with the shared configuration (each detects its own backend).
         *
         * @throws InvalidConfigurationException when there is no shard, or a queue is pinned to a shard not added
         */
        public ShardedSkipjack build() {
            if (dataSources.isEmpty()) {
                throw new InvalidConfigurationException("shard", "a sharded client needs at least one shard");
            }
            pins.forEach((queue, shard) -> {
                if (!dataSources.containsKey(shard)) {
                    throw new InvalidConfigurationException("pinQueue", "queue '" + queue + "' is pinned to shard '"
                            + shard + "', which was not added; the shards are " + dataSources.keySet());
                }
            });
            Map<String, Skipjack> clients = new LinkedHashMap<>();
            dataSources.forEach((name, dataSource) -> {
                Skipjack.Builder builder = configure.apply(Skipjack.builder(dataSource));
                if (builder == null) {
                    throw new InvalidConfigurationException("configure", "the shard configuration returned no builder");
                }
                clients.put(name, builder.build());
            });
            return new ShardedSkipjack(clients, pins);
        }
    }
}
