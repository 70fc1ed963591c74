package dev.skipjack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.skipjack.internal.observe.InterceptorChain;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.internal.enqueue.ArgsEncoder;
import dev.skipjack.internal.kind.ExecutionMode;
import dev.skipjack.internal.concurrency.ConcurrencyAdmission;
import dev.skipjack.internal.enqueue.ConcurrencyOrder;
import dev.skipjack.internal.enqueue.InsertBatch;
import dev.skipjack.internal.enqueue.InsertRow;
import dev.skipjack.internal.enqueue.InsertedJobs;
import dev.skipjack.internal.enqueue.JobInserter;
import dev.skipjack.internal.enqueue.StoredText;
import dev.skipjack.internal.enqueue.UniqueKeys;
import dev.skipjack.internal.enqueue.ValidatedChunks;
import dev.skipjack.internal.cron.CronSchedules;
import dev.skipjack.internal.cron.CronTicker;
import dev.skipjack.internal.query.JobInfoReader;
import dev.skipjack.internal.maintenance.RunFence;
import dev.skipjack.internal.node.StartedNode;
import dev.skipjack.internal.notify.InsertNotifications;
import dev.skipjack.internal.schema.Migrator;
import dev.skipjack.internal.sql.Capability;
import dev.skipjack.internal.sql.ConnectionHints;
import dev.skipjack.internal.sql.DatabaseDetector;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.kind.RegisteredKind;
import dev.skipjack.internal.maintenance.DueJobPromoter;
import dev.skipjack.internal.worker.InlineRunner;
import dev.skipjack.internal.worker.WorkerRuntime;
import dev.skipjack.internal.workflow.WorkflowInserter;
import dev.skipjack.internal.workflow.WorkflowProgress;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The Skipjack client: enqueues jobs and, once {@link #start() started}, runs them.
 *
 * <pre>{@code
 * static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);
 *
 * Skipjack skipjack = Skipjack.builder(dataSource)
 *         .queue("default", 8)
 *         .handler(SEND_EMAIL, job -> { mailer.send(job.args()); return Outcome.complete(); })
 *         .build();
 * skipjack.migrate();
 * skipjack.start();
 * skipjack.enqueue(SEND_EMAIL, new SendEmail("ada@example.com", "Welcome"));
 * }</pre>
 *
 * Thread-safe. {@link #close()} stops the workers gracefully.
 */
public final class Skipjack implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Skipjack.class);

    /** Lease of a claimed job; heartbeats extend it while the handler runs. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(15);
    /** How often a node looks for work when nothing woke it. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    /**
     * How often the maintenance leader returns jobs with expired leases (and every node runs the
     * election). With the 15 s lease, a dead worker's jobs are back within about 20 s even when the
     * dead worker was the leader.
     */
    public static final Duration DEFAULT_RESCUE_INTERVAL = Duration.ofSeconds(2);
    /** How often each node makes due scheduled and retryable jobs available. */
    public static final Duration DEFAULT_PROMOTE_INTERVAL = Duration.ofMillis(250);
    /** How long {@link #close()} lets running jobs finish before handing them back. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
    /** How long completed jobs are kept before the maintenance leader deletes them (F-19). */
    public static final Duration DEFAULT_COMPLETED_RETENTION = Duration.ofHours(24);
    /** How long cancelled jobs are kept. */
    public static final Duration DEFAULT_CANCELLED_RETENTION = Duration.ofHours(24);
    /** How long discarded jobs are kept: longer, so someone can look at why they failed. */
    public static final Duration DEFAULT_DISCARDED_RETENTION = Duration.ofDays(7);
    /** Pass to {@link Builder#retention(JobState, Duration)} to never delete jobs of that state. */
    public static final Duration KEEP_FOREVER = ChronoUnit.FOREVER.getDuration();
    /** How often the maintenance leader deletes jobs past their retention. */
    public static final Duration DEFAULT_PRUNE_INTERVAL = Duration.ofSeconds(10);
    /**
     * How long available jobs wait in a queue that no running node serves before the maintenance
     * leader warns about it.
     */
    public static final Duration DEFAULT_UNSERVED_QUEUE_THRESHOLD = Duration.ofMinutes(5);
    /** Tries of an enqueue in its own transaction that a transient conflict rolled back. */
    private static final int ENQUEUE_ATTEMPTS = 3;
    /** How often every started node looks for cron ticks that have come (F-11). */
    public static final Duration DEFAULT_CRON_INTERVAL = Duration.ofSeconds(1);
    /** Longest finite retention; anything longer is meant as {@link #KEEP_FOREVER}. */
    static final Duration MAX_RETENTION = Duration.ofDays(100 * 365);

    private final DataSource dataSource;
    private final TableNames names;
    private final SqlStatements sql;
    private final ObjectMapper mapper;
    private final ArgsEncoder argsEncoder;
    private final UniqueKeys uniqueKeys;
    /** Concurrency limits of the kinds registered here, by kind name (F-12). */
    private final Map<String, ConcurrencyLimit<?>> kindLimits;
    /** Admits keyed jobs right after an enqueue commits (F-12, F-13). */
    private final ConcurrencyAdmission admission;
    private final Map<String, RegisteredKind> kinds;
    /** Kinds enqueued through a handle, resolved once per handle. */
    private final Map<JobKind<?>, RegisteredKind> handles = new ConcurrentHashMap<>();
    private final List<QueueOptions> queues;
    private final String workerId;
    private final WorkerRuntime.Timing timing;
    private final Duration rescueInterval;
    private final Duration promoteInterval;
    private final Duration shutdownTimeout;
    private final int maxArgsBytes;
    private final JobInserter inserter;
    /** Fences each start's run off from the late stop writes of the run before (same worker id). */
    private final RunFence runFence = new RunFence();
    private final WorkflowInserter workflowInserter;
    /** The jobs table's NOTIFY channel (F-16); null without LISTEN/NOTIFY. */
    private final String notifyChannel;
    private final Duration pruneInterval;
    private final List<CronSchedule> declaredSchedules;
    private final Duration cronInterval;
    private final Duration unservedQueueThreshold;
    private final Map<JobState, Duration> retention;
    /** The registered SkipjackListeners; NONE when there are none. */
    private final ListenerFanOut listeners;
    /** The registered JobInterceptors; NONE when there are none. */
    private final InterceptorChain interceptors;
    /** Read by enqueuing threads to wake this node's fetchers: volatile, or a start could go unseen. */
    private volatile StartedNode runtime;
    private final DatabaseClock clock;
    /** Runs jobs on a caller's thread (runJob); made on first use, closed with the client. */
    private InlineRunner inline;

    private Skipjack(Builder b, Dialect dialect, String schema) {
        this.dataSource = b.dataSource;
        this.clock = b.clock;
        this.sql = dialect.statements(new TableNames(schema, b.tablePrefix), b.clock);
        this.names = sql.names();
        this.mapper = b.mapper != null ? b.mapper : DefaultMapper.INSTANCE;
        this.argsEncoder = new ArgsEncoder(mapper);
        this.uniqueKeys = new UniqueKeys(mapper);
        Map<String, RegisteredKind> registered = new LinkedHashMap<>();
        b.kinds.forEach((name, k) -> registered.put(name,
                new RegisteredKind(name, mapper.constructType(k.kind().argsType()), k.options(), k.mode())));
        this.kinds = Collections.unmodifiableMap(registered);
        // Resolve every kind's args serializer and deserializer now, into the mapper's caches: a cold
        // JVM otherwise spends the first job's claim round loading and introspecting ~150 of
        // Jackson's classes for the handler's side (a tenth of a fresh worker's first 20,000 no-op
        // jobs), and a producer's first enqueue ~190 for writing and reading back (a quarter of the
        // calling thread's CPU in a fresh producer's first bulk enqueue of 20,000 jobs).
        // Declared-only kinds are enqueued too. Only a warm-up: Jackson keeps a type it cannot
        // handle out of its caches, a lookup that throws (a broken module) is only logged, and the
        // enqueue or the claim that meets either reports it with the job.
        kinds.values().forEach(k -> {
            try {
                mapper.writerFor(k.argsType());
                mapper.readerFor(k.argsType());
            } catch (RuntimeException e) {
                log.debug("args type {} of kind {} not resolved ahead: {}", k.argsType(), k.kind(), e.toString());
            }
        });
        Map<String, ConcurrencyLimit<?>> limits = new HashMap<>();
        b.kinds.forEach((name, k) -> {
            if (k.kind().concurrencyLimit() != null) {
                limits.put(name, k.kind().concurrencyLimit());
            }
        });
        this.kindLimits = Map.copyOf(limits);
        Set<String> twoPhaseKinds = ExecutionMode.twoPhaseHandlers(kinds).keySet();
        if (!twoPhaseKinds.isEmpty() && !dialect.supports(Capability.TWO_PHASE_COMMIT)) {
            throw new InvalidConfigurationException("kind", "two-phase kinds " + twoPhaseKinds + " need prepared"
                    + " transactions, which Skipjack uses on PostgreSQL only, not on " + dialect.backend().productName()
                    + ": register them with transactionalHandler (the handler's writes commit with the job) or"
                    + " handler (lease mode), see docs/backends.md");
        }
        this.queues = List.copyOf(b.queues.values());
        this.workerId = b.workerId != null ? b.workerId : defaultWorkerId();
        Duration heartbeat = b.lease.dividedBy(3);
        this.timing = new WorkerRuntime.Timing(b.lease, heartbeat, b.pollInterval);
        this.rescueInterval = b.rescueInterval;
        this.promoteInterval = b.promoteInterval;
        this.shutdownTimeout = b.shutdownTimeout;
        this.maxArgsBytes = b.maxArgsBytes;
        // Without LISTEN/NOTIFY, idle workers poll; enqueues in this process still wake them at once.
        boolean listenNotify = b.listenNotify && dialect.supports(Capability.LISTEN_NOTIFY);
        this.notifyChannel = listenNotify ? InsertNotifications.channel(names) : null;
        this.admission = new ConcurrencyAdmission(sql, dataSource, notifyChannel);
        this.pruneInterval = b.pruneInterval;
        Map<JobState, Duration> pruned = new EnumMap<>(JobState.class);
        b.retention.forEach((state, keep) -> {
            if (!keep.equals(KEEP_FOREVER)) {
                pruned.put(state, keep);
            }
        });
        this.retention = Collections.unmodifiableMap(pruned);
        this.inserter = new JobInserter(sql, notifyChannel);
        this.workflowInserter = new WorkflowInserter(sql, notifyChannel);
        this.declaredSchedules = List.copyOf(b.schedules.values());
        this.cronInterval = b.cronInterval;
        this.unservedQueueThreshold = b.unservedQueueThreshold;
        this.listeners = ListenerFanOut.of(b.listeners);
        this.interceptors = InterceptorChain.of(b.interceptors);
    }

    /** A builder of a client on {@code dataSource}; every other setting has a default. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Creates or upgrades Skipjack's tables; safe to call from many nodes at once. Returns versions applied. */
    public List<Integer> migrate() {
        return new Migrator(sql).migrate(dataSource);
    }

    /** The schema as plain SQL, for applying with Flyway, Liquibase or psql instead of {@link #migrate()}. */
    public String migrationSql() {
        return new Migrator(sql).exportSql();
    }

    /** The PostgreSQL schema for {@code schema} and {@code tablePrefix} as plain SQL, without a client or a database. */
    public static String migrationSql(String schema, String tablePrefix) {
        return migrationSql(Backend.POSTGRESQL, schema, tablePrefix);
    }

    /**
     * The schema of {@code backend} for {@code schema} (on MySQL and MariaDB: the database) and
     * {@code tablePrefix} as plain SQL, without a client or a database (on SQLite the schema is
     * {@code main} or an attached database).
     */
    public static String migrationSql(Backend backend, String schema, String tablePrefix) {
        return new Migrator(Dialect.of(backend).statements(new TableNames(schema, tablePrefix), new DatabaseClock()))
                .exportSql();
    }

    /**
     * This client's schema as one script per migration, for Flyway or Liquibase (see
     * {@link MigrationScript}); {@code skipjack migrate --export-dir} writes them as files.
     */
    public List<MigrationScript> migrationScripts() {
        return new Migrator(sql).exportScripts();
    }

    /**
     * The schema of {@code backend} for {@code schema} and {@code tablePrefix} as one script per
     * migration, without a client or a database.
     */
    public static List<MigrationScript> migrationScripts(Backend backend, String schema, String tablePrefix) {
        return new Migrator(Dialect.of(backend).statements(new TableNames(schema, tablePrefix), new DatabaseClock()))
                .exportScripts();
    }

    /**
     * The quoted, schema-qualified name of the jobs table, e.g. {@code "public"."skipjack_jobs"}
     * (on MySQL and MariaDB {@code `db`.`skipjack_jobs`}), for reporting queries.
     */
    public String jobsTable() {
        return names.qualified("jobs");
    }

    /** The database this client runs on, as detected at {@link Builder#build()} or set with {@link Builder#backend(Backend)}. */
    public Backend backend() {
        return sql.dialect().backend();
    }

    /** This client's worker id, recorded on every job it claims. */
    public String workerId() {
        return workerId;
    }

    // ---------------------------------------------------------------- enqueue

    /**
     * Enqueues one job of {@code kind} in its own transaction, with default options; returns its id.
     * The kind need not be registered on this client: a client that only enqueues needs nothing
     * but the handle.
     *
     * @throws InvalidArgsException          when the args do not serialize, would not read back
     *                                       as the kind's args type, or hold a string no backend
     *                                       stores as given (U+0000, a lone UTF-16 surrogate; the
     *                                       message names its JSON path, e.g. {@code $.lines[2].text})
     * @throws ArgsTooLargeException         when the serialized args exceed {@link Builder#maxArgsBytes(int)}
     * @throws InvalidOptionException        when the options' metadata holds such a string
     * @throws InvalidConfigurationException (option {@code kind}) when this client registered the
     *                                       kind's name with another args type than the handle's
     * @throws SkipjackException             when the insert fails
     */
    public <T> long enqueue(JobKind<T> kind, T args) {
        return enqueue(JobRequest.of(kind, args));
    }

    /** As {@link #enqueue(JobKind, Object)}, with {@code options} saying where and when it runs. */
    public <T> long enqueue(JobKind<T> kind, T args, EnqueueOptions options) {
        return enqueue(JobRequest.of(kind, args, options));
    }

    /**
     * Enqueues one job inside the caller's transaction on {@code connection} (F-6): the job exists
     * if and only if that transaction commits. Skipjack does not commit or close the connection.
     * Throws as {@link #enqueue(JobKind, Object)}, and never leaves the caller's transaction
     * unusable: bad input is refused before any SQL, and on PostgreSQL, where a failed statement
     * aborts the transaction, Skipjack's statements run in a savepoint, so after a
     * {@link SkipjackException} the caller's own work can still commit.
     * <p>
     * A connection in auto-commit has no caller's transaction: the call then commits on its own,
     * as one transaction when it takes more than one statement, and leaves auto-commit on. If a
     * failed call's rollback of that transaction fails too, Skipjack abandons the connection
     * ({@link Connection#abort}; on SQLite a close) rather than leave half a call in it for the
     * next commit: the caller's next use of that connection then fails, and a pool replaces it.
     */
    public <T> long enqueue(Connection connection, JobKind<T> kind, T args, EnqueueOptions options) {
        return enqueueAll(connection, List.of(JobRequest.of(kind, args, options))).get(0);
    }

    /** As {@link #enqueue(Connection, JobKind, Object, EnqueueOptions)} with default options. */
    public <T> long enqueue(Connection connection, JobKind<T> kind, T args) {
        return enqueue(connection, kind, args, EnqueueOptions.defaults());
    }

    /**
     * Enqueues one job of the kind named {@code kind}, which this client must have registered (a
     * handler, or declared with {@link Builder#kind(JobKind)}), in its own transaction; returns
     * its id. For tools that get kind names as text; code enqueues through a {@link JobKind}.
     *
     * @throws UnknownKindException  when this client has not registered the kind
     * @throws InvalidOptionException when the name is malformed
     * @throws InvalidArgsException  when the args do not serialize, or would not read back as the
     *                               kind's args type
     * @throws ArgsTooLargeException when the serialized args exceed {@link Builder#maxArgsBytes(int)}
     * @throws SkipjackException     when the insert fails
     */
    public long enqueue(String kind, Object args) {
        return enqueue(JobRequest.of(kind, args));
    }

    /** As {@link #enqueue(String, Object)}, with {@code options} saying where and when it runs. */
    public long enqueue(String kind, Object args, EnqueueOptions options) {
        return enqueue(JobRequest.of(kind, args, options));
    }

    /** As {@link #enqueue(String, Object, EnqueueOptions)}, inside the caller's transaction on {@code connection}. */
    public long enqueue(Connection connection, String kind, Object args, EnqueueOptions options) {
        return enqueueAll(connection, List.of(JobRequest.of(kind, args, options))).get(0);
    }

    /** As {@link #enqueue(String, Object)}, inside the caller's transaction on {@code connection}. */
    public long enqueue(Connection connection, String kind, Object args) {
        return enqueue(connection, kind, args, EnqueueOptions.defaults());
    }

    /** Enqueues one request in its own transaction; returns its id. Throws as {@link #enqueueAll(List)}. */
    public long enqueue(JobRequest request) {
        return enqueueAll(List.of(request)).get(0);
    }

    /**
     * Enqueues many jobs with multi-row inserts in one transaction; returns ids in request order.
     * Every request is checked before its insert, and one bad request keeps none of the call. For a
     * {@link EnqueueOptions#withUnique unique} request whose key a job already holds, the id is
     * that job's; {@link #enqueueAllWithResults(List)} says which ids are duplicates.
     * <p>
     * More than 5,000 requests are inserted in chunks while the next ones are still being checked
     * on a thread of the call's own: the args of requests after the first 256 are serialized (and
     * a kind limit's partition function run) there, where the calling thread's thread-locals are
     * not set. A bad request's chunk is never inserted and the chunks before it are rolled back.
     *
     * @throws InvalidJobException           ({@link UnknownKindException}, {@link InvalidOptionException},
     *                                       {@link InvalidArgsException}, {@link ArgsTooLargeException})
     *                                       for a request refused as {@link #enqueue(String, Object)}
     *                                       and {@link #enqueue(JobKind, Object)} refuse it
     * @throws InvalidConfigurationException for a handle that disagrees with this client's registration
     * @throws SkipjackException             when the insert fails
     */
    public List<Long> enqueueAll(List<JobRequest> requests) {
        return ids(enqueueAllWithResults(requests));
    }

    /**
     * Enqueues many jobs inside the caller's transaction on {@code connection} (F-6); throws as
     * {@link #enqueueAll(List)}. Skipjack does not commit or close the connection; in auto-commit
     * it behaves as {@link #enqueue(Connection, JobKind, Object, EnqueueOptions)} says.
     */
    public List<Long> enqueueAll(Connection connection, List<JobRequest> requests) {
        return ids(enqueueAllWithResults(connection, requests));
    }

    /**
     * As {@link #enqueue(JobRequest)}, saying whether the job was a duplicate of a unique job that
     * already held its key (F-10); then nothing was inserted and the id is the existing job's.
     */
    public EnqueueResult enqueueWithResult(JobRequest request) {
        return enqueueAllWithResults(List.of(request)).get(0);
    }

    /** As {@link #enqueueWithResult(JobRequest)}, inside the caller's transaction on {@code connection}. */
    public EnqueueResult enqueueWithResult(Connection connection, JobRequest request) {
        return enqueueAllWithResults(connection, List.of(request)).get(0);
    }

    /**
     * As {@link #enqueueAll(List)}, saying for each request whether it was a duplicate (F-10). Two
     * requests of one call with the same unique key give one job: the later is its duplicate.
     */
    public List<EnqueueResult> enqueueAllWithResults(List<JobRequest> requests) {
        if (isValidatedAhead(requests)) {
            try {
                return enqueueValidatingAhead(null, requests);
            } catch (TransientConflict e) {
                // Rolled back whole: run it again the plain way, its retries counted from the second.
                return enqueueAll(validate(requests), e.context, 2);
            }
        }
        InsertBatch rows = validate(requests);
        return enqueueAll(rows, enqueueContext(), 1);
    }

    /**
     * Enqueues validated rows with the interceptors' {@code context} in a transaction of their own,
     * from the given attempt of {@link #ENQUEUE_ATTEMPTS}.
     */
    private List<EnqueueResult> enqueueAll(InsertBatch rows, String context, int firstAttempt) {
        for (int attempt = firstAttempt; ; attempt++) {
            try {
                // A single plain job is one statement (its notification folded in): no BEGIN/COMMIT.
                boolean oneStatement = context == null && inserter.isOneStatement(rows);
                List<EnqueueResult> results = Transactions.inTransaction(dataSource, sql.dialect(), oneStatement,
                        c -> insert(c, rows, context));
                reportEnqueued(rows.rows(), results);
                wakeQueues(rows.queues());
                admitKeyed(rows.concurrencyKeys());
                return results;
            } catch (SQLException e) {
                // InnoDB can deadlock inserters of one unique key when its holder rolls back: the
                // whole transaction was rolled back, so it is safe to run again.
                if (attempt < ENQUEUE_ATTEMPTS && sql.dialect().isTransientConflict(e)) {
                    continue;
                }
                throw enqueueFailed(rows.size(), e);
            }
        }
    }

    /** As {@link #enqueueAllWithResults(List)}, inside the caller's transaction on {@code connection}. */
    public List<EnqueueResult> enqueueAllWithResults(Connection connection, List<JobRequest> requests) {
        if (isValidatedAhead(requests)) {
            Objects.requireNonNull(connection, "connection");
            return enqueueValidatingAhead(connection, requests);
        }
        InsertBatch rows = validate(requests);
        List<EnqueueResult> results;
        boolean autoCommit;
        try {
            autoCommit = Objects.requireNonNull(connection, "connection").getAutoCommit();
            String context = enqueueContext();
            // More than one row, a stored context, or a notification after the insert is more than
            // one statement: all or none of them.
            results = Transactions.guarded(connection, sql.dialect(),
                    rows.size() > 1 || context != null || inserter.notifiesSeparately(rows),
                    c -> insert(c, rows, context));
        } catch (SQLException e) {
            throw enqueueFailed(rows.size(), e);
        }
        reportEnqueued(rows.rows(), results);
        afterCommitted(autoCommit, rows);
        return results;
    }

    /**
     * After an enqueue whose jobs are committed (its own transaction, or the caller's connection in
     * auto-commit): this process's fetchers are woken and keyed jobs admitted. On the caller's
     * connection in auto-commit they once waited for a poll (MariaDB, MySQL, SQLite, or without
     * LISTEN), and a keyed job for the admission pass. In the caller's transaction nothing is
     * committed yet: the commit's notification (PostgreSQL) or the next poll finds them.
     */
    private void afterCommitted(boolean committed, InsertBatch rows) {
        if (committed) {
            wakeQueues(rows.queues());
            admitKeyed(rows.concurrencyKeys());
        }
    }

    /**
     * Whether a bulk enqueue is validated a chunk ahead of its inserts ({@link ValidatedChunks}):
     * when it takes more than one insert statement.
     */
    private static boolean isValidatedAhead(List<JobRequest> requests) {
        return Objects.requireNonNull(requests, "requests").size() > JobInserter.ROWS_PER_STATEMENT;
    }

    /**
     * A bulk enqueue of several chunks, each inserted as soon as it is validated while the next is
     * validated on another thread (on this one, chunk by chunk, when the JVM cannot start it); in a
     * transaction of its own ({@code connection} null) or in the caller's on {@code connection}. A
     * request found bad throws its validation error after the chunks before it were inserted and
     * rolled back (a failed statement of an earlier chunk comes first). Throws
     * {@link TransientConflict} when the own transaction met a conflict worth running it again for.
     */
    private List<EnqueueResult> enqueueValidatingAhead(Connection connection, List<JobRequest> requests) {
        InsertBatch inserted = new InsertBatch(requests.size());
        List<EnqueueResult> results;
        String context = null;
        boolean autoCommit = false;
        try (ValidatedChunks chunks = ValidatedChunks.start(requests, JobInserter.ROWS_PER_STATEMENT, this::validate)) {
            // Asked after the first chunk's validation, as after a whole call's validation elsewhere.
            String chunksContext = enqueueContext();
            context = chunksContext;
            Transactions.Work<List<EnqueueResult>> work = c -> {
                List<List<EnqueueResult>> parts = new ArrayList<>();
                for (InsertBatch chunk = chunks.next(); chunk != null; chunk = chunks.next()) {
                    List<EnqueueResult> part = inserter.insertChunk(c, chunk);
                    storeContext(c, chunksContext, part);
                    parts.add(part);
                    inserted.addAll(chunk);
                }
                inserter.notifyInserted(c, inserted);
                return InsertedJobs.concat(parts);
            };
            autoCommit = connection != null && connection.getAutoCommit();
            results = connection == null ? Transactions.inTransaction(dataSource, sql.dialect(), false, work)
                    : Transactions.guarded(connection, sql.dialect(), true, work);
        } catch (SQLException e) {
            if (connection == null && sql.dialect().isTransientConflict(e)) {
                throw new TransientConflict(e, context);
            }
            throw enqueueFailed(requests.size(), e);
        }
        reportEnqueued(inserted.rows(), results);
        afterCommitted(connection == null || autoCommit, inserted);
        return results;
    }

    /** A bulk enqueue in a transaction of its own was rolled back by a conflict it may run again after. */
    private static final class TransientConflict extends RuntimeException {
        /** The interceptors' context the call captured, for its next attempt. */
        final String context;

        TransientConflict(SQLException cause, String context) {
            super(cause);
            this.context = context;
        }
    }

    /** The interceptors' context for the jobs the calling thread enqueues (JobInterceptor); null for none. */
    private String enqueueContext() {
        return interceptors.active() ? interceptors.captureContext() : null;
    }

    /** Inserts the rows and, in the same transaction, stores {@code context} with those inserted. */
    private List<EnqueueResult> insert(Connection c, InsertBatch rows, String context) throws SQLException {
        List<EnqueueResult> results = inserter.insert(c, rows);
        storeContext(c, context, results);
        return results;
    }

    /** Stores {@code context} (none when null) with the jobs of {@code results} just inserted on {@code c}. */
    private void storeContext(Connection c, String context, List<EnqueueResult> results) throws SQLException {
        if (context != null) {
            // Duplicates of unique jobs inserted nothing: the job holding the key keeps its own context.
            inserter.storeContext(c, context, results.stream().filter(r -> !r.duplicate()).map(EnqueueResult::id).toList());
        }
    }

    /** As {@link #insert(Connection, InsertBatch, String)} for a workflow's jobs. */
    private WorkflowInserter.Inserted insert(Connection c, Workflow workflow, List<WorkflowInserter.StepRow> steps,
                                             String context) throws SQLException {
        WorkflowInserter.Inserted inserted = workflowInserter.insert(c, workflow.name(), workflow.policy().dbValue(), steps);
        if (context != null) {
            inserter.storeContext(c, context, inserted.jobIds());
        }
        return inserted;
    }

    /**
     * Tells the listeners what was inserted, one event per run of consecutive rows of one queue and
     * kind (a batch is usually one kind), without a map; duplicates of unique jobs inserted nothing.
     * {@code results} null: every row was inserted.
     */
    private void reportEnqueued(List<InsertRow> rows, List<EnqueueResult> results) {
        if (!listeners.active()) {
            return;
        }
        int count = 0;
        for (int i = 0; i < rows.size(); i++) {
            InsertRow row = rows.get(i);
            if (results == null || !results.get(i).duplicate()) {
                count++;
            }
            InsertRow next = i + 1 < rows.size() ? rows.get(i + 1) : null;
            if (next == null || !next.queue().equals(row.queue()) || !next.kind().equals(row.kind())) {
                if (count > 0) {
                    listeners.jobsEnqueued(row.queue(), row.kind(), count);
                }
                count = 0;
            }
        }
    }

    /** As {@link #reportEnqueued(List, List)} for a workflow, all of whose jobs are inserted. */
    private void reportEnqueued(List<WorkflowInserter.StepRow> steps) {
        if (listeners.active()) {
            reportEnqueued(steps.stream().map(WorkflowInserter.StepRow::job).toList(), null);
        }
    }

    /** The failure, with what to change when the error is a symptom of the setup (logged once too). */
    private SkipjackException enqueueFailed(int jobs, SQLException e) {
        String hint = ConnectionHints.note(sql.dialect(), e);
        return new SkipjackException("enqueue of " + jobs + " jobs failed: " + e.getMessage()
                + (hint == null ? "" : "; " + hint), e);
    }

    // ---------------------------------------------------------------- workflows

    /**
     * Enqueues a workflow (F-14) in its own transaction: its jobs, the steps they depend on, and the
     * workflow itself exist at once, or not at all. Steps without parents are due as their requests
     * say; the others wait until every parent completed. Returns the workflow's id and its jobs'
     * ids by step name.
     *
     * @throws InvalidWorkflowException for a workflow with no step, a step depending on a step it
     *                                  does not have, steps depending on each other in a circle, or
     *                                  a step with a unique key ({@link InvalidWorkflowException#problem()})
     * @throws InvalidJobException      for a step's request refused as {@link #enqueue(JobRequest)} refuses it
     * @throws SkipjackException        when the insert fails
     */
    public EnqueuedWorkflow enqueueWorkflow(Workflow workflow) {
        List<WorkflowInserter.StepRow> steps = validate(workflow);
        String context = enqueueContext();
        for (int attempt = 1; ; attempt++) {
            try {
                WorkflowInserter.Inserted inserted = Transactions.inTransaction(dataSource, sql.dialect(),
                        c -> insert(c, workflow, steps, context));
                reportEnqueued(steps);
                wakeQueues(inserted.queuesDueNow());
                return enqueued(inserted, steps);
            } catch (SQLException e) {
                if (attempt < ENQUEUE_ATTEMPTS && sql.dialect().isTransientConflict(e)) {
                    continue;
                }
                throw new SkipjackException("enqueue of workflow '" + workflow.name() + "' (" + steps.size()
                        + " jobs) failed: " + e.getMessage(), e);
            }
        }
    }

    /**
     * As {@link #enqueueWorkflow(Workflow)}, inside the caller's transaction on {@code connection}
     * (F-6): the workflow exists if and only if that transaction commits. Skipjack does not commit
     * or close the connection.
     */
    public EnqueuedWorkflow enqueueWorkflow(Connection connection, Workflow workflow) {
        Objects.requireNonNull(connection, "connection");
        List<WorkflowInserter.StepRow> steps = validate(workflow);
        try {
            String context = enqueueContext();
            // Jobs, edges and the workflow's row: several writes, all or none of them.
            EnqueuedWorkflow enqueued = enqueued(Transactions.guarded(connection, sql.dialect(), true,
                    c -> insert(c, workflow, steps, context)), steps);
            reportEnqueued(steps);
            return enqueued;
        } catch (SQLException e) {
            throw new SkipjackException("enqueue of workflow '" + workflow.name() + "' (" + steps.size()
                    + " jobs) failed: " + e.getMessage(), e);
        }
    }

    /** The workflow's steps parents first, each request checked as enqueue checks it. */
    private List<WorkflowInserter.StepRow> validate(Workflow workflow) {
        Objects.requireNonNull(workflow, "workflow");
        List<Workflow.Step> ordered = workflow.inDependencyOrder();
        Map<String, Integer> index = new HashMap<>();
        List<WorkflowInserter.StepRow> rows = new ArrayList<>(ordered.size());
        for (Workflow.Step step : ordered) {
            InsertRow row = validate(step.request());
            if (row.isUnique()) {
                throw new InvalidWorkflowException(InvalidWorkflowException.Problem.UNSUPPORTED_OPTION, List.of(step.name()),
                        "step '" + step.name() + "' of workflow '" + workflow.name() + "' asks for a unique key: a"
                                + " workflow's jobs cannot be unique jobs (a duplicate would leave the step without a job of its own)");
            }
            if (row.isKeyed()) {
                throw new InvalidWorkflowException(InvalidWorkflowException.Problem.UNSUPPORTED_OPTION, List.of(step.name()),
                        "step '" + step.name() + "' of workflow '" + workflow.name() + "' has a concurrency key ("
                                + row.concurrencyKey() + "): a workflow's jobs cannot be limited or ordered by key yet"
                                + " (docs/limits-and-ordering.md)");
            }
            List<Integer> parents = new ArrayList<>(step.parents().size());
            for (String parent : step.parents()) {
                parents.add(index.get(parent));
            }
            index.put(step.name(), rows.size());
            rows.add(new WorkflowInserter.StepRow(step.name(), row, parents));
        }
        return rows;
    }

    private static EnqueuedWorkflow enqueued(WorkflowInserter.Inserted inserted, List<WorkflowInserter.StepRow> steps) {
        Map<String, Long> ids = new LinkedHashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            ids.put(steps.get(i).step(), inserted.jobIds().get(i));
        }
        return new EnqueuedWorkflow(inserted.workflowId(), ids);
    }

    private static List<Long> ids(List<EnqueueResult> results) {
        return InsertedJobs.ids(results);
    }

    /**
     * The key a {@link ShardedSkipjack} keeps on one shard: the request's concurrency, rate or
     * sequence key, else its unique key; null when it has neither. Checks the request as its
     * enqueue will; only a request with a key pays for it here.
     */
    String routingKey(JobRequest request) {
        EnqueueOptions o = request.options();
        if (o.unique() == null && o.concurrency() == null && kindLimit(request) == null) {
            return null;
        }
        InsertRow row = validate(request);
        return row.concurrencyKey() != null ? row.concurrencyKey() : row.uniqueKey();
    }

    /**
     * The requests' rows, in order. A bulk enqueue is mostly requests of one kind with the same
     * options: for each run of those, everything but the args is worked out once (kind, options,
     * due time, tags, metadata) and each further request costs only its args' checks. Requests
     * whose row depends on the args too (unique, or with a concurrency key) are worked out alone.
     */
    private InsertBatch validate(List<? extends JobRequest> requests) {
        Objects.requireNonNull(requests, "requests");
        BatchValidation validation = new BatchValidation(requests.size());
        for (JobRequest r : requests) {
            // The loop's body is a method of its own: in a fresh JVM this loop runs once and stays
            // interpreted, while a method called per request is compiled after a few hundred.
            validation.add(r);
        }
        return validation.rows;
    }

    /** The state of {@link #validate(List)}: the rows so far and the shape of the last run of requests. */
    private final class BatchValidation {
        final InsertBatch rows;
        final ArgsEncoder.Batch args = argsEncoder.batch(maxArgsBytes);
        /** The request the current shape was worked out for, or null when the last row had no reusable shape. */
        JobRequest shapeOf;
        InsertRow shape;
        RegisteredKind shapeKind;

        BatchValidation(int size) {
            rows = new InsertBatch(size);
        }

        void add(JobRequest r) {
            Objects.requireNonNull(r, "request");
            if (shapeOf != null && r.handle() == shapeOf.handle() && r.kind().equals(shapeOf.kind())
                    && r.options().sameRowAs(shapeOf.options())) {
                rows.addSameShape(shape.withArgs(argsJson(r, shapeKind, args)));
                return;
            }
            InsertRow row = validate(r, args);
            rows.add(row);
            boolean argsOnly = !row.isUnique() && !row.isKeyed();
            shapeOf = argsOnly ? r : null;
            shape = argsOnly ? row : null;
            shapeKind = argsOnly ? kindOf(r) : null;
        }
    }

    private InsertRow validate(JobRequest r) {
        return validate(r, argsEncoder.batch(maxArgsBytes));
    }

    /** The kind a request names: through its handle, or registered here by name. */
    private RegisteredKind kindOf(JobRequest r) {
        return r.handle() != null ? handles.computeIfAbsent(r.handle(), this::resolve) : registered(r.kind());
    }

    private InsertRow validate(JobRequest r, ArgsEncoder.Batch batch) {
        RegisteredKind kind = kindOf(r);
        String json = argsJson(r, kind, batch);
        EnqueueOptions o = r.options();
        int maxAttempts = o.maxAttempts() > 0 ? o.maxAttempts() : kind.options().maxAttempts();
        Long runAt = o.runAt() == null ? null : o.runAt().toEpochMilli();
        Long delay = o.delay() == null ? null : o.delay().toMillis();
        Unique unique = o.unique();
        String key = null;
        if (unique != null) {
            long due = runAt != null ? runAt : System.currentTimeMillis() + (delay == null ? 0 : delay);
            key = uniqueKeys.key(unique, r.kind(), o.queue(), json, due);
        }
        ConcurrencyKey concurrency = concurrencyKey(r);
        return new InsertRow(o.queue(), r.kind(), json, o.priority(), maxAttempts, runAt, delay, key,
                unique != null && unique.isIncludingCompleted(), tagsJson(o), metadataJson(r.kind(), o),
                concurrency == null ? null : concurrency.key(), concurrency == null ? null : concurrency.max(),
                concurrency == null ? null : concurrency.order(), concurrency == null ? null : concurrency.periodMillis());
    }

    /** A job's stored concurrency key, its limit, its order and a rate limit's period (F-12, F-13). */
    private record ConcurrencyKey(String key, int max, String order, Long periodMillis) {
        ConcurrencyKey(String key, int max, String order) {
            this(key, max, order, null);
        }
    }

    /**
     * The request's concurrency key: its kind's limit (declared on the handle it was enqueued
     * through, else on the kind registered here), or the key its options give, or none.
     */
    private ConcurrencyKey concurrencyKey(JobRequest r) {
        ConcurrencyLimit<?> limit = kindLimit(r);
        EnqueueOptions.KeyedConcurrency keyed = r.options().concurrency();
        if (limit != null && keyed != null) {
            throw new InvalidOptionException("a job has one concurrency key: kind '" + r.kind() + "' is limited to "
                    + limit.max() + (limit.isRate() ? " per " + limit.period() + " (JobKind.rateLimitedTo)" : " (JobKind.limitedTo)")
                    + ", so it cannot also take " + (keyed.ordered() ? "sequence key '"
                    : keyed.period() != null ? "rate limit key '" : "concurrency key '") + keyed.key() + "'");
        }
        if (limit != null) {
            return kindLimitKey(limit, r.kind(), r.args());
        }
        if (keyed == null) {
            return null;
        }
        if (keyed.period() != null) {
            return new ConcurrencyKey(ConcurrencyOrder.RATE_PREFIX + keyed.key(), keyed.max(), ConcurrencyOrder.RATE,
                    keyed.period().toMillis());
        }
        if (!keyed.ordered()) {
            return new ConcurrencyKey(ConcurrencyOrder.KEY_PREFIX + keyed.key(), keyed.max(), ConcurrencyOrder.PRIORITY);
        }
        return new ConcurrencyKey(ConcurrencyOrder.SEQUENCE_PREFIX + keyed.key(), 1,
                keyed.onDiscard() == SequenceOnDiscard.BLOCK ? ConcurrencyOrder.FIFO_BLOCK : ConcurrencyOrder.FIFO);
    }

    /** The limit of the request's kind: declared on the handle it was enqueued through, else on the kind registered here; null when none. */
    private ConcurrencyLimit<?> kindLimit(JobRequest r) {
        return r.handle() != null && r.handle().concurrencyLimit() != null
                ? r.handle().concurrencyLimit() : kindLimits.get(r.kind());
    }

    /** The key of a job of {@code kind} under the kind's {@code limit}, its partition taken from {@code args}. */
    private static ConcurrencyKey kindLimitKey(ConcurrencyLimit<?> limit, String kind, Object args) {
        String partition = limit.partitionOf(kind, args);
        String prefix = (limit.isRate() ? ConcurrencyOrder.KIND_RATE_PREFIX : ConcurrencyOrder.KIND_PREFIX) + kind;
        String order = limit.isRate() ? ConcurrencyOrder.RATE : ConcurrencyOrder.PRIORITY;
        Long period = limit.isRate() ? limit.period().toMillis() : null;
        if (partition == null) {
            return new ConcurrencyKey(prefix, limit.max(), order, period);
        }
        String problem = Limits.keyProblem(partition, Limits.MAX_PARTITION_LENGTH);
        if (problem != null) {
            throw new InvalidArgsException("the " + (limit.isRate() ? "rate" : "concurrency") + " limit of kind '"
                    + kind + "' cannot use partition " + Limits.quote(partition) + ": " + problem);
        }
        return new ConcurrencyKey(prefix + "/" + partition, limit.max(), order, period);
    }

    /**
     * A cron tick's job with the limit of its kind, when this client registered the kind with one
     * (F-12): the job waits for a slot like any enqueued one. Its args are read back as the kind's
     * args type for a partitioned limit; when they no longer read (the kind changed since the
     * schedule was stored), the job is inserted without a key and the reason logged, rather than
     * the tick lost.
     */
    private InsertRow withKindLimit(InsertRow row) {
        ConcurrencyLimit<?> limit = kindLimits.get(row.kind());
        if (limit == null) {
            return row;
        }
        ConcurrencyKey key;
        try {
            Object args = limit.isPartitioned() ? mapper.readValue(row.argsJson(), kinds.get(row.kind()).argsType()) : null;
            key = kindLimitKey(limit, row.kind(), args);
        } catch (JsonProcessingException | RuntimeException e) {
            log.warn("a cron job of kind '{}' is enqueued without its kind's limit: its args do not give a partition ({})",
                    row.kind(), e.toString());
            return row;
        }
        return new InsertRow(row.queue(), row.kind(), row.argsJson(), row.priority(), row.maxAttempts(), row.runAtMillis(),
                row.delayMillis(), row.uniqueKey(), row.uniqueIncludesCompleted(), row.tagsJson(), row.metadataJson(),
                key.key(), key.max(), key.order(), key.periodMillis());
    }

    /** After an enqueue's own commit: jobs of these concurrency keys are admitted now rather than at the next pass. */
    private void admitKeyed(Set<String> concurrencyKeys) {
        if (!concurrencyKeys.isEmpty()) {
            wakeQueues(admission.admitQuietly(concurrencyKeys));
        }
    }

    /**
     * The args' JSON, checked cheapest first and all before any SQL: its size while it is written,
     * then the strings no backend stores as given, then that it reads back as the kind's args type.
     */
    private String argsJson(JobRequest r, RegisteredKind kind, ArgsEncoder.Batch batch) {
        String json;
        try {
            json = batch.write(r.args());
        } catch (ArgsEncoder.TooLarge e) {
            throw tooLarge(r.kind(), "more than " + maxArgsBytes);
        } catch (IllegalArgumentException | JsonProcessingException e) {
            throw new InvalidArgsException("args of kind '" + r.kind() + "' do not serialize to "
                    + kind.argsType().getTypeName() + ": " + e.getMessage(), e);
        }
        // UTF-8 takes at most three bytes per char: only long text needs counting.
        int bytes = (long) json.length() * 3 <= maxArgsBytes ? json.length() : json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxArgsBytes) {
            throw tooLarge(r.kind(), String.valueOf(bytes));
        }
        StoredText.Refusal refused = StoredText.refusal(json);
        if (refused != null) {
            throw new InvalidArgsException("args of kind '" + r.kind() + "' cannot be stored: " + refused.describe()
                    + "; remove or escape it before enqueueing");
        }
        try {
            argsEncoder.checkReadsBack(r.args(), json, kind.argsType());
        } catch (IllegalArgumentException | JsonProcessingException e) {
            throw new InvalidArgsException("args of kind '" + r.kind() + "' do not serialize to "
                    + kind.argsType().getTypeName() + ": " + e.getMessage(), e);
        }
        return json;
    }

    private ArgsTooLargeException tooLarge(String kind, String bytes) {
        return new ArgsTooLargeException("args of kind '" + kind + "' are " + bytes
                + " bytes of JSON, over the limit of " + maxArgsBytes + " bytes; store large data elsewhere and pass a reference");
    }

    private String tagsJson(EnqueueOptions o) {
        if (o.tags().isEmpty()) {
            return null;
        }
        try {
            return mapper.writeValueAsString(o.tags());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a list of strings always serializes", e);
        }
    }

    private String metadataJson(String kind, EnqueueOptions o) {
        if (o.metadata() == null) {
            return null;
        }
        String json;
        try {
            json = mapper.writeValueAsString(o.metadata());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new InvalidOptionException("metadata of a job of kind '" + kind + "' does not serialize to JSON: "
                    + e.getMessage());
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > Limits.MAX_METADATA_BYTES) {
            throw new InvalidOptionException("metadata of a job of kind '" + kind + "' is " + bytes
                    + " bytes of JSON, over the limit of " + Limits.MAX_METADATA_BYTES + " bytes");
        }
        StoredText.Refusal refused = StoredText.refusal(json);
        if (refused != null) {
            throw new InvalidOptionException("metadata of a job of kind '" + kind + "' cannot be stored: "
                    + refused.describe() + "; remove or escape it before enqueueing");
        }
        return json;
    }

    /** A kind enqueued by name: it must be registered here. */
    private RegisteredKind registered(String name) {
        // Registered kinds were validated at registration: only an unknown name needs the pattern check.
        RegisteredKind kind = kinds.get(name);
        if (kind == null) {
            Limits.requireKindName(name);
            throw new UnknownKindException("unknown kind '" + name + "': register a handler for it, declare it"
                    + " with Builder.kind(JobKind.of(\"" + name + "\", ArgsType.class)), or enqueue through a JobKind;"
                    + " known kinds: " + kinds.keySet());
        }
        return kind;
    }

    /** A kind enqueued through a handle: the registered kind of that name, or the handle alone with default options. */
    private RegisteredKind resolve(JobKind<?> handle) {
        JavaType type = mapper.constructType(handle.argsType());
        RegisteredKind kind = kinds.get(handle.name());
        if (kind == null) {
            return new RegisteredKind(handle.name(), type, KindOptions.defaults(), new ExecutionMode.RunElsewhere());
        }
        if (!kind.argsType().equals(type)) {
            throw new InvalidConfigurationException("kind", "kind '" + handle.name() + "' is registered on this client"
                    + " with args type " + kind.argsType().toCanonical() + ", but was enqueued through " + handle
                    + " with args type " + type.toCanonical() + ": one kind name, one args type");
        }
        return kind;
    }

    private void wakeQueues(Set<String> queues) {
        StartedNode node = runtime;
        if (node != null) {
            node.wake(queues);
        }
    }

    // ---------------------------------------------------------------- cron

    /**
     * Stores {@code schedule} (F-11) in the database, where every started node (of any client on
     * this schema) enqueues its ticks from now on. Storing a schedule that exists under that name
     * with the same definition changes nothing (its next tick stays); with another definition, it
     * replaces it and its next tick is computed anew. Schedules declared with
     * {@link Builder#cron(CronSchedule)} are stored this way by {@link #start()}.
     *
     * @throws InvalidJobException as {@link #enqueue(JobKind, Object)} for the schedule's args
     * @throws SkipjackException   when it cannot be stored
     */
    public void schedule(CronSchedule schedule) {
        Objects.requireNonNull(schedule, "schedule");
        @SuppressWarnings("unchecked")
        JobKind<Object> kind = (JobKind<Object>) schedule.kind();
        InsertRow job = validate(JobRequest.of(kind, schedule.args(), schedule.options()));
        try {
            Instant now = CronTicker.databaseNow(dataSource, sql);
            CronSchedules.store(dataSource, sql, schedule, job, now);
        } catch (SQLException e) {
            throw new SkipjackException("storing cron schedule " + schedule.name() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Removes the schedule named {@code name}; returns whether it existed. {@link SkipjackAdmin#schedules()}
     * lists them. Its ticks already
     * enqueued stay; a node declaring it again with {@link Builder#cron(CronSchedule)} stores it again.
     */
    public boolean unschedule(String name) {
        try {
            return CronSchedules.delete(dataSource, sql, name);
        } catch (SQLException e) {
            throw new SkipjackException("removing cron schedule " + name + " failed: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- run

    /**
     * Starts the fetchers, job threads, heartbeat and maintenance. The schema must be migrated.
     *
     * @throws InvalidConfigurationException (option {@code queue}) when the client has no queue
     * @throws IllegalStateException         when already started
     * @throws SkipjackException             when the runtime cannot start (e.g. two-phase kinds
     *                                       without {@code max_prepared_transactions})
     */
    public synchronized void start() {
        if (runtime != null) {
            throw new IllegalStateException("already started");
        }
        if (queues.isEmpty()) {
            throw new InvalidConfigurationException("queue",
                    "no queue configured: call Builder.queue(name, concurrency) before start(); a client that only enqueues needs no start()");
        }
        List<WorkerRuntime.QueueSettings> settings = queues.stream()
                .map(q -> new WorkerRuntime.QueueSettings(q.name(), q.concurrency(), q.maxBatch())).toList();
        warnIfTheDefaultQueueIsNotServed();
        // Stored before the node starts: its first cron round already sees them.
        declaredSchedules.forEach(this::schedule);
        runtime = StartedNode.start(new StartedNode.Settings(dataSource, sql, workerId, mapper, kinds, settings, timing,
                rescueInterval, promoteInterval, pruneInterval, retention,
                notifyChannel,
                new CronTicker(dataSource, sql, inserter, uniqueKeys, this::wakeQueues, this::withKindLimit), cronInterval,
                unservedQueueThreshold, listeners, interceptors, runFence));
    }

    /**
     * A job enqueued without {@link EnqueueOptions#withQueue} goes to {@value EnqueueOptions#DEFAULT_QUEUE}.
     * A node that runs handlers but does not serve that queue leaves such jobs of its kinds to other
     * nodes, or to none; said once, at start (issue 14). The leader's unserved-queue check names
     * the queue later if no node serves it.
     */
    private void warnIfTheDefaultQueueIsNotServed() {
        if (queues.stream().anyMatch(q -> q.name().equals(EnqueueOptions.DEFAULT_QUEUE))) {
            return;
        }
        List<String> handled = kinds.values().stream().filter(k -> k.mode().runnable()).map(RegisteredKind::kind).toList();
        if (!handled.isEmpty()) {
            log.warn("this node runs handlers for kinds {} but does not serve queue '{}', where jobs enqueued without"
                            + " EnqueueOptions.withQueue go: those run only on nodes serving '{}'. Serve it here too"
                            + " (Builder.queue(\"{}\", n)) or enqueue these kinds to a queue this node serves: {}",
                    handled, EnqueueOptions.DEFAULT_QUEUE, EnqueueOptions.DEFAULT_QUEUE, EnqueueOptions.DEFAULT_QUEUE,
                    queues.stream().map(q -> q.name()).toList());
        }
    }

    /**
     * The clock this client's statements read as "now": the one given to {@link Builder#clock},
     * else the client's own at offset zero. A test moves it to make delayed, retrying and snoozed
     * jobs due ({@link DatabaseClock}); moving it in production makes this client disagree with
     * the other nodes about time.
     */
    public DatabaseClock clock() {
        return clock;
    }

    // ---------------------------------------------------------------- run one job now

    /**
     * Runs job {@code id} once, now, on the calling thread, the way a worker of this client runs
     * it: due scheduled and retryable jobs are first made available (as a started node does every
     * {@link Builder#promoteInterval promote interval}); then the job's row is claimed (attempt
     * counted, {@code running}), its args are read into the kind's type, its handler runs under
     * the kind's timeout (in the job's transaction for transactional and two-phase kinds), and its
     * outcome is written with the same rules as a worker's: retry with backoff, snooze, discard,
     * output, workflow release, the next job of its concurrency key. Listeners hear of it.
     *
     * <p>For tests (the {@code skipjack-testing} helpers are built on it) and one-off runs. The
     * client need not be started, and the job's queue need not be one it serves. Only the
     * dispatch and the lease heartbeat are not involved: a handler that outlives the
     * {@link Builder#lease lease} can meanwhile be rescued by a started node.
     *
     * @return the job as stored after its run; empty when it was not available to run (not due
     *         yet, waiting, already running elsewhere, or ended)
     * @throws IllegalArgumentException when no job has this id
     * @throws UnknownKindException     when the job's kind has no handler on this client
     * @throws SkipjackException        when the database cannot be reached
     */
    public Optional<JobInfo> runJob(long id) {
        JobInfo job = find(id).orElseThrow(() -> new IllegalArgumentException("no job with id " + id
                + " in " + jobsTable()));
        RegisteredKind kind = kinds.get(job.kind());
        if (kind == null || !kind.mode().runnable()) {
            throw new UnknownKindException("job " + id + " is of kind '" + job.kind() + "', which has no handler on"
                    + " this client (handlers: " + kinds.values().stream().filter(k -> k.mode().runnable())
                    .map(RegisteredKind::kind).toList() + ")");
        }
        try {
            new DueJobPromoter(dataSource, sql, this::wakeQueues,
                    notifyChannel).promoteAll();
            return inlineRunner().run(id, job.kind()) ? find(id) : Optional.empty();
        } catch (SQLException e) {
            throw new SkipjackException("could not run job " + id + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new SkipjackException("could not run job " + id + ": " + e, e);
        }
    }

    private synchronized InlineRunner inlineRunner() {
        if (inline == null) {
            inline = new InlineRunner(dataSource, sql, workerId, mapper, kinds, timing.lease(),
                    notifyChannel, this::wakeQueues, listeners, interceptors);
        }
        return inline;
    }

    /** Graceful stop (F-18) with the configured shutdown timeout. */
    @Override
    public void close() {
        stop(shutdownTimeout);
        synchronized (this) {
            if (inline != null) {
                inline.close();
                inline = null;
            }
        }
    }

    /** Stops claiming, waits up to {@code timeout} for running jobs, hands the rest back at once. */
    public synchronized void stop(Duration timeout) {
        if (runtime != null) {
            runtime.stop(timeout);
            runtime = null;
        }
    }

    // ---------------------------------------------------------------- inspect

    /** The job with this id, if it exists. Same as {@code admin().job(id)}. */
    public Optional<JobInfo> find(long id) {
        return admin().job(id);
    }

    /** Operator actions and queries on this client's tables: find, count, retry, cancel, pause (F-25). */
    public SkipjackAdmin admin() {
        return new SkipjackAdmin(dataSource, sql, new JobInfoReader(mapper, sql.dialect()), queues -> {
            StartedNode node = runtime;
            if (node != null) {
                node.wake(queues);
            }
        }, () -> {
            StartedNode node = runtime;
            if (node != null) {
                node.refreshPauses();
            }
        }, new WorkflowProgress(sql, notifyChannel));
    }

    /** Job counts per state over all queues. States with no jobs are present with 0. */
    public Map<JobState, Long> countByState() {
        Map<JobState, Long> counts = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) {
            counts.put(s, 0L);
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("count_by_state"));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                counts.merge(JobState.fromDb(rs.getString(2)), rs.getLong(3), Long::sum);
            }
        } catch (SQLException e) {
            throw new SkipjackException("counting jobs failed: " + e.getMessage(), e);
        }
        return counts;
    }

    private static String defaultWorkerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        String pid = Long.toString(ProcessHandle.current().pid());
        return host + "-" + pid + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    // ---------------------------------------------------------------- builder

    /**
     * Configures a client. Every setting has a default except the DataSource. Each method checks its
     * value at once and refuses a bad one with {@link InvalidConfigurationException} naming the
     * option (its {@link InvalidConfigurationException#option() option()}); a null handler, kind or
     * options object is a {@link NullPointerException}.
     */
    /**
     * The mapper of clients built without {@link Builder#objectMapper}: Jackson's with the modules on
     * the class path, made once per process when first needed. Finding the modules scans the class
     * path (tens of milliseconds in a fresh JVM); every builder used to pay it, even one given its
     * own mapper. Skipjack never configures the mapper it is given, so clients can share it (and
     * its serializer caches).
     */
    private static final class DefaultMapper {
        static final ObjectMapper INSTANCE = JsonMapper.builder().findAndAddModules().build();
    }

    public static final class Builder {
        private final DataSource dataSource;
        private final Map<String, Registration> kinds = new LinkedHashMap<>();
        private final Map<String, QueueOptions> queues = new LinkedHashMap<>();
        /** Null until set: the default depends on the backend (PostgreSQL {@code public}, MySQL family the URL's database). */
        private String schema;
        private String tablePrefix = "skipjack_";
        /** Null unless set: the clients then share {@link DefaultMapper#INSTANCE}. */
        private ObjectMapper mapper;
        private String workerId;
        private Duration lease = DEFAULT_LEASE;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration rescueInterval = DEFAULT_RESCUE_INTERVAL;
        private Duration promoteInterval = DEFAULT_PROMOTE_INTERVAL;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private int maxArgsBytes = Limits.DEFAULT_MAX_ARGS_BYTES;
        private boolean listenNotify = true;
        private Duration pruneInterval = DEFAULT_PRUNE_INTERVAL;
        private final Map<String, CronSchedule> schedules = new LinkedHashMap<>();
        private Duration cronInterval = DEFAULT_CRON_INTERVAL;
        private Duration unservedQueueThreshold = DEFAULT_UNSERVED_QUEUE_THRESHOLD;
        private DatabaseClock clock = new DatabaseClock();
        private Backend backend;
        private final List<SkipjackListener> listeners = new ArrayList<>();
        private final List<JobInterceptor> interceptors = new ArrayList<>();
        private final Map<JobState, Duration> retention = new EnumMap<>(Map.of(
                JobState.COMPLETED, DEFAULT_COMPLETED_RETENTION,
                JobState.CANCELLED, DEFAULT_CANCELLED_RETENTION,
                JobState.DISCARDED, DEFAULT_DISCARDED_RETENTION));

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * Schema of Skipjack's tables (default: {@code public} on PostgreSQL; on MySQL and MariaDB,
         * where a schema is a database, the database the DataSource's connections start in).
         *
         * @throws InvalidIdentifierException (option {@code schema}) unless 1-41 of a-z, 0-9 and '_',
         *                                    not starting with a digit
         */
        public Builder schema(String schema) {
            new TableNames(schema, "");
            this.schema = schema;
            return this;
        }

        /**
         * Prefix of Skipjack's table names (default {@code skipjack_}).
         *
         * @throws InvalidIdentifierException (option {@code tablePrefix}) unless 0-21 of a-z, 0-9 and
         *                                    '_', not starting with a digit
         */
        public Builder tablePrefix(String prefix) {
            new TableNames("public", prefix);
            this.tablePrefix = prefix;
            return this;
        }

        /**
         * The clock every statement of this client reads as "now" (default: the database's own
         * time). Tests pass a {@link DatabaseClock} they advance, to see delays, backoff, rescue and
         * retention happen without sleeping.
         */
        public Builder clock(DatabaseClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The database family, instead of detecting it (default: detected by {@link #build()} from
         * the DataSource's metadata and server version). For a PostgreSQL-compatible engine that
         * reports another product name: Skipjack then runs its PostgreSQL statements there without
         * checking the product or its version.
         */
        public Builder backend(Backend backend) {
            this.backend = Objects.requireNonNull(backend, "backend");
            return this;
        }

        /**
         * Works queue {@code name} with {@code concurrency} jobs at once in this process.
         *
         * @throws InvalidConfigurationException (option {@code queue(name)} or
         *                                       {@code queue(concurrency)}) as {@link QueueOptions#of}
         */
        public Builder queue(String name, int concurrency) {
            return queue(QueueOptions.of(name, concurrency));
        }

        /** Works the queue {@code options} describe; a later call for the same queue name replaces it. */
        public Builder queue(QueueOptions options) {
            queues.put(options.name(), options);
            return this;
        }

        /**
         * Registers a lease-mode handler for {@code kind} with default {@link KindOptions}: the job is
         * claimed with a lease that heartbeats extend while the handler runs.
         *
         * @throws InvalidConfigurationException (option {@code kind}) when a kind of that name is
         *                                       already registered
         */
        public <T> Builder handler(JobKind<T> kind, JobHandler<T> handler) {
            return handler(kind, KindOptions.defaults(), handler);
        }

        /** As {@link #handler(JobKind, JobHandler)}, with {@code options} (timeout, retry policy, max attempts). */
        @SuppressWarnings("unchecked")
        public <T> Builder handler(JobKind<T> kind, KindOptions options, JobHandler<T> handler) {
            Objects.requireNonNull(handler, "handler");
            return register(kind, options, new ExecutionMode.Lease((JobHandler<Object>) handler));
        }

        /**
         * Registers a transactional-mode handler (F-4) for {@code kind}: its writes on the given
         * connection commit with the job, or not at all.
         *
         * @throws InvalidConfigurationException (option {@code kind}) when a kind of that name is
         *                                       already registered
         */
        public <T> Builder transactionalHandler(JobKind<T> kind, TransactionalJobHandler<T> handler) {
            return transactionalHandler(kind, KindOptions.defaults(), handler);
        }

        /** As {@link #transactionalHandler(JobKind, TransactionalJobHandler)}, with {@code options}. */
        @SuppressWarnings("unchecked")
        public <T> Builder transactionalHandler(JobKind<T> kind, KindOptions options, TransactionalJobHandler<T> handler) {
            Objects.requireNonNull(handler, "handler");
            return register(kind, options, new ExecutionMode.Transactional((TransactionalJobHandler<Object>) handler));
        }

        /**
         * Registers a two-phase handler (F-5) for {@code kind}: database work, PREPARE, an outside
         * call, COMMIT PREPARED. {@link #build()} does not need the server's
         * {@code max_prepared_transactions}; {@link Skipjack#start()} does.
         *
         * @throws InvalidConfigurationException (option {@code kind}) when a kind of that name is
         *                                       already registered
         */
        public <T> Builder twoPhaseHandler(JobKind<T> kind, TwoPhaseJobHandler<T> handler) {
            return twoPhaseHandler(kind, KindOptions.defaults(), handler);
        }

        /** As {@link #twoPhaseHandler(JobKind, TwoPhaseJobHandler)}, with {@code options}. */
        @SuppressWarnings("unchecked")
        public <T> Builder twoPhaseHandler(JobKind<T> kind, KindOptions options, TwoPhaseJobHandler<T> handler) {
            Objects.requireNonNull(handler, "handler");
            return register(kind, options, new ExecutionMode.TwoPhase((TwoPhaseJobHandler<Object>) handler));
        }

        /**
         * Declares a kind this client enqueues but does not run (another service has the handler),
         * with default {@link KindOptions}. Enqueueing through the handle needs no declaration;
         * declare a kind to enqueue it by name ({@link Skipjack#enqueue(String, Object)}), to list
         * it in {@link Skipjack#kinds()}, or to give its jobs the max attempts of {@code options}.
         *
         * @throws InvalidConfigurationException (option {@code kind}) when a kind of that name is
         *                                       already registered
         */
        public Builder kind(JobKind<?> kind) {
            return kind(kind, KindOptions.defaults());
        }

        /** As {@link #kind(JobKind)}, with {@code options}. */
        public Builder kind(JobKind<?> kind, KindOptions options) {
            return register(kind, options, new ExecutionMode.RunElsewhere());
        }

        private Builder register(JobKind<?> kind, KindOptions options, ExecutionMode mode) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(options, "options");
            Registration earlier = kinds.get(kind.name());
            if (earlier != null) {
                throw new InvalidConfigurationException("kind", "kind '" + kind.name() + "' is already registered"
                        + (earlier.kind().equals(kind) ? "" : " as " + earlier.kind() + ", now as " + kind)
                        + ": register each kind once");
            }
            kinds.put(kind.name(), new Registration(kind, options, mode));
            return this;
        }

        /** The JSON mapper for args (default: Jackson's with the modules on the class path). */
        public Builder objectMapper(ObjectMapper mapper) {
            this.mapper = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        /**
         * The id recorded on claimed jobs (default: host, pid and a random suffix).
         *
         * @throws InvalidConfigurationException (option {@code workerId}) unless 1-200 printable characters
         */
        public Builder workerId(String workerId) {
            if (workerId == null || workerId.isBlank() || workerId.length() > 200
                    || workerId.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidConfigurationException("workerId", "workerId must be 1-200 printable characters, got " + Limits.quote(workerId));
            }
            this.workerId = workerId;
            return this;
        }

        /**
         * Lease of a claimed job (default 15 s); heartbeats extend it every third of it.
         *
         * @throws InvalidConfigurationException (option {@code lease}) when null or under 1 s
         */
        public Builder lease(Duration lease) {
            this.lease = requireAtLeast("lease", lease, Duration.ofSeconds(1));
            return this;
        }

        /**
         * How often an idle node looks for work when nothing woke it (default 1 s).
         *
         * @throws InvalidConfigurationException (option {@code pollInterval}) when null or under 10 ms
         */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = requireAtLeast("pollInterval", interval, Duration.ofMillis(10));
            return this;
        }

        /**
         * How often the maintenance leader returns jobs with expired leases (default 2 s).
         *
         * @throws InvalidConfigurationException (option {@code rescueInterval}) when null or under 100 ms
         */
        public Builder rescueInterval(Duration interval) {
            this.rescueInterval = requireAtLeast("rescueInterval", interval, Duration.ofMillis(100));
            return this;
        }

        /**
         * How often each node makes due scheduled and retryable jobs available (default 250 ms).
         *
         * @throws InvalidConfigurationException (option {@code promoteInterval}) when null or under 10 ms
         */
        public Builder promoteInterval(Duration interval) {
            this.promoteInterval = requireAtLeast("promoteInterval", interval, Duration.ofMillis(10));
            return this;
        }

        /**
         * How long {@link Skipjack#close()} lets running jobs finish before handing them back (default 10 s).
         *
         * @throws InvalidConfigurationException (option {@code shutdownTimeout}) when null or negative
         */
        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = requireAtLeast("shutdownTimeout", timeout, Duration.ZERO);
            return this;
        }

        /**
         * Largest serialized args accepted at enqueue, in bytes (default 256 KiB).
         *
         * @throws InvalidConfigurationException (option {@code maxArgsBytes}) unless 2 bytes to 64 MiB
         */
        public Builder maxArgsBytes(int bytes) {
            if (bytes < 2 || bytes > 64 * 1024 * 1024) {
                throw new InvalidConfigurationException("maxArgsBytes", "maxArgsBytes must be between 2 and 64 MiB, got " + bytes);
            }
            this.maxArgsBytes = bytes;
            return this;
        }

        /**
         * LISTEN/NOTIFY wake-up (F-16), on by default: enqueues send one {@code NOTIFY} per
         * transaction and started workers hold one connection that {@code LISTEN}s, so an idle
         * worker starts a new job within milliseconds. Turn it off behind PgBouncer in transaction
         * mode, where a session cannot keep listening: workers then find jobs by polling every
         * {@link #pollInterval(Duration)}, and enqueues send no notifications.
         */
        public Builder listenNotify(boolean enabled) {
            this.listenNotify = enabled;
            return this;
        }

        /**
         * How long jobs that ended in {@code terminalState} (completed, cancelled or discarded) are
         * kept, counted from when they finished; after that the maintenance leader deletes them
         * (F-19). Defaults: completed and cancelled 24 h, discarded 7 days. {@link #KEEP_FOREVER}
         * never deletes that state; {@code Duration.ZERO} deletes at the next pruning round.
         * Only started clients prune, and only the one that leads maintenance.
         *
         * @throws InvalidConfigurationException (option {@code retention(STATE)}, e.g.
         *                                       {@code retention(DISCARDED)}) for a state that is not
         *                                       terminal, a null or negative duration, or one over
         *                                       100 years other than {@code KEEP_FOREVER}
         */
        public Builder retention(JobState terminalState, Duration keepFor) {
            String option = "retention(" + terminalState + ")";
            if (terminalState == null || !terminalState.isTerminal()) {
                throw new InvalidConfigurationException(option, "retention applies to terminal states (COMPLETED, CANCELLED,"
                        + " DISCARDED) only, got " + terminalState + ": other jobs are never deleted by age");
            }
            if (keepFor == null || keepFor.isNegative()
                    || (keepFor.compareTo(MAX_RETENTION) > 0 && !keepFor.equals(KEEP_FOREVER))) {
                throw new InvalidConfigurationException(option, "retention of " + terminalState + " jobs must be between 0 and "
                        + MAX_RETENTION.toDays() + " days, or Skipjack.KEEP_FOREVER, got " + keepFor);
            }
            retention.put(terminalState, keepFor);
            return this;
        }

        /**
         * How often the maintenance leader deletes jobs past their retention (default 10 s); each
         * round deletes at most 100,000 jobs in batches of 1,000.
         *
         * @throws InvalidConfigurationException (option {@code pruneInterval}) when null or under 100 ms
         */
        public Builder pruneInterval(Duration interval) {
            this.pruneInterval = requireAtLeast("pruneInterval", interval, Duration.ofMillis(100));
            return this;
        }

        /**
         * Declares a periodic job (F-11): stored in the database by {@link Skipjack#start()}, and
         * enqueued once per tick by whichever started node finds the tick first.
         *
         * @throws InvalidConfigurationException (option {@code cron}) when null, or when a schedule
         *                                       of that name was declared already
         */
        public Builder cron(CronSchedule schedule) {
            if (schedule == null) {
                throw new InvalidConfigurationException("cron", "schedule must not be null");
            }
            if (schedules.putIfAbsent(schedule.name(), schedule) != null) {
                throw new InvalidConfigurationException("cron", "cron schedule '" + schedule.name()
                        + "' is declared twice: one name, one schedule");
            }
            return this;
        }

        /**
         * How often each started node looks for cron ticks that have come (default 1 s): a tick is
         * enqueued at most this long after its time.
         *
         * @throws InvalidConfigurationException (option {@code cronInterval}) when null or under 100 ms
         */
        public Builder cronInterval(Duration interval) {
            this.cronInterval = requireAtLeast("cronInterval", interval, Duration.ofMillis(100));
            return this;
        }

        /**
         * How long available jobs may wait in a queue that no running node serves before the
         * maintenance leader logs a warning naming the queue (default 5 minutes; checked once a
         * minute). {@link SkipjackAdmin#queues()} shows which nodes serve each queue at any time.
         *
         * @throws InvalidConfigurationException (option {@code unservedQueueThreshold}) when null or under 1 s
         */
        public Builder unservedQueueThreshold(Duration threshold) {
            this.unservedQueueThreshold = requireAtLeast("unservedQueueThreshold", threshold, Duration.ofSeconds(1));
            return this;
        }

        /**
         * Adds a listener told what this client does: jobs enqueued, claimed, started and finished,
         * leases rescued ({@link SkipjackListener}; for metrics, {@code skipjack-micrometer}). Listeners
         * are called in the order added; one that throws is logged and skipped, never failing the job
         * or the enqueue that called it.
         */
        public Builder listener(SkipjackListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Adds an interceptor that stores context with the jobs this client enqueues and wraps their
         * handlers' runs with it ({@link JobInterceptor}; for tracing, {@code skipjack-opentelemetry}).
         * The first added is the outermost around a handler; one that throws is logged and skipped,
         * never failing the job or the enqueue.
         */
        public Builder interceptor(JobInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * The client; it enqueues at once, and runs jobs after {@link Skipjack#start()}. Unless
         * {@link #backend(Backend)} named the database, opens one connection to tell which database
         * the DataSource leads to (F-24), before any other statement.
         *
         * @throws UnsupportedDatabaseException for a database or version Skipjack cannot run on
         * @throws SkipjackException            when no connection can be opened to detect it
         */
        public Skipjack build() {
            Backend chosen = backend != null ? backend : DatabaseDetector.detect(dataSource).backend();
            Dialect dialect = Dialect.of(chosen);
            String chosenSchema = schema != null ? schema : dialect.defaultSchema(dataSource);
            dialect.checkConnections(dataSource, chosenSchema);
            return new Skipjack(this, dialect, chosenSchema);
        }

        private static Duration requireAtLeast(String name, Duration value, Duration min) {
            if (value == null || value.compareTo(min) < 0) {
                throw new InvalidConfigurationException(name, name + " must be at least " + min + ", got " + value);
            }
            return value;
        }

        /** A kind as registered: the mapper makes its args type a JavaType at {@link #build()}. */
        private record Registration(JobKind<?> kind, KindOptions options, ExecutionMode mode) {
        }
    }

    /** Names of the kinds registered with this client (handlers and declared kinds), for tools. */
    public Set<String> kinds() {
        return kinds.keySet();
    }
}
