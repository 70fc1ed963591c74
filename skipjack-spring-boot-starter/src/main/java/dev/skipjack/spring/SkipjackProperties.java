package dev.skipjack.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code skipjack.*} properties: each maps to the {@link dev.skipjack.Skipjack.Builder} method
 * of the same name, and an unset one leaves the builder's default. The builder checks every value;
 * a bad one fails the context's start naming the property. Anything not here (cron schedules, a
 * retry policy, an object mapper, {@code Skipjack.KEEP_FOREVER}) goes through a
 * {@link SkipjackBuilderCustomizer} bean.
 *
 * <pre>
 * skipjack.queues.default=16
 * skipjack.queues.mail=4
 * skipjack.lease=30s
 * skipjack.retention.completed=6h
 * skipjack.kinds.send-email.timeout=30s
 * </pre>
 */
@ConfigurationProperties(prefix = "skipjack")
public class SkipjackProperties {

    /** Whether to configure Skipjack at all. When false, no Skipjack bean is created. */
    private boolean enabled = true;

    /**
     * Whether this application runs jobs. When false it only enqueues (a producer): the client is
     * built, migrated and injectable, but its workers never start.
     */
    private boolean workerEnabled = true;

    /**
     * Whether to create or upgrade Skipjack's tables when the client is created (versioned, safe
     * from many nodes at once). Turn it off when Flyway or Liquibase applies the schema
     * (the CLI's "migrate --print-sql" prints it).
     */
    private boolean migrateOnStart = true;

    /**
     * Schema of Skipjack's tables. Default: public on PostgreSQL; on MySQL and MariaDB the
     * database the DataSource's connections start in.
     */
    private String schema;

    /** Prefix of Skipjack's table names. Default: skipjack_. */
    private String tablePrefix;

    /**
     * Queues this application works, by name, with how many of each queue's jobs run at once in
     * this process, e.g. skipjack.queues.default=16.
     */
    private Map<String, Integer> queues = new LinkedHashMap<>();

    /** How often an idle node looks for work when nothing woke it. Default: 1 s. */
    private Duration pollInterval;

    /** Lease of a claimed job; heartbeats extend it while the handler runs. Default: 15 s. */
    private Duration lease;

    /** How long a stop lets running jobs finish before handing them back. Default: 10 s. */
    private Duration shutdownTimeout;

    /** How often the maintenance leader returns jobs with expired leases. Default: 2 s. */
    private Duration rescueInterval;

    /** How often each node makes due scheduled and retryable jobs available. Default: 250 ms. */
    private Duration promoteInterval;

    /** How often the maintenance leader deletes jobs past their retention. Default: 10 s. */
    private Duration pruneInterval;

    /** How often each started node looks for cron ticks that have come. Default: 1 s. */
    private Duration cronInterval;

    /**
     * How long available jobs may wait in a queue no running node serves before the maintenance
     * leader warns. Default: 5 minutes.
     */
    private Duration unservedQueueThreshold;

    /**
     * LISTEN/NOTIFY wake-ups on PostgreSQL. Turn off behind PgBouncer in transaction mode: workers
     * then poll every poll-interval.
     */
    private boolean listenNotify = true;

    /** The id recorded on the jobs this node claims. Default: host, pid and a random suffix. */
    private String workerId;

    /** Largest serialized args accepted at enqueue, in bytes. Default: 262144 (256 KiB). */
    private Integer maxArgsBytes;

    /** How long finished jobs are kept, per terminal state. */
    private final Retention retention = new Retention();

    /**
     * Options of the kinds whose handlers are beans here, by kind name, e.g.
     * skipjack.kinds.send-email.timeout=30s.
     */
    private Map<String, Kind> kinds = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isWorkerEnabled() {
        return workerEnabled;
    }

    public void setWorkerEnabled(boolean workerEnabled) {
        this.workerEnabled = workerEnabled;
    }

    public boolean isMigrateOnStart() {
        return migrateOnStart;
    }

    public void setMigrateOnStart(boolean migrateOnStart) {
        this.migrateOnStart = migrateOnStart;
    }

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public String getTablePrefix() {
        return tablePrefix;
    }

    public void setTablePrefix(String tablePrefix) {
        this.tablePrefix = tablePrefix;
    }

    public Map<String, Integer> getQueues() {
        return queues;
    }

    public void setQueues(Map<String, Integer> queues) {
        this.queues = queues;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public Duration getRescueInterval() {
        return rescueInterval;
    }

    public void setRescueInterval(Duration rescueInterval) {
        this.rescueInterval = rescueInterval;
    }

    public Duration getPromoteInterval() {
        return promoteInterval;
    }

    public void setPromoteInterval(Duration promoteInterval) {
        this.promoteInterval = promoteInterval;
    }

    public Duration getPruneInterval() {
        return pruneInterval;
    }

    public void setPruneInterval(Duration pruneInterval) {
        this.pruneInterval = pruneInterval;
    }

    public Duration getCronInterval() {
        return cronInterval;
    }

    public void setCronInterval(Duration cronInterval) {
        this.cronInterval = cronInterval;
    }

    public Duration getUnservedQueueThreshold() {
        return unservedQueueThreshold;
    }

    public void setUnservedQueueThreshold(Duration unservedQueueThreshold) {
        this.unservedQueueThreshold = unservedQueueThreshold;
    }

    public boolean isListenNotify() {
        return listenNotify;
    }

    public void setListenNotify(boolean listenNotify) {
        this.listenNotify = listenNotify;
    }

    public String getWorkerId() {
        return workerId;
    }

    public void setWorkerId(String workerId) {
        this.workerId = workerId;
    }

    public Integer getMaxArgsBytes() {
        return maxArgsBytes;
    }

    public void setMaxArgsBytes(Integer maxArgsBytes) {
        this.maxArgsBytes = maxArgsBytes;
    }

    public Retention getRetention() {
        return retention;
    }

    public Map<String, Kind> getKinds() {
        return kinds;
    }

    public void setKinds(Map<String, Kind> kinds) {
        this.kinds = kinds;
    }

    /** How long jobs that ended in each terminal state are kept before the maintenance leader deletes them. */
    public static class Retention {

        /** Completed jobs. Default: 24 h. */
        private Duration completed;

        /** Cancelled jobs. Default: 24 h. */
        private Duration cancelled;

        /** Discarded jobs (out of attempts, or discarded by their handler). Default: 7 days. */
        private Duration discarded;

        public Duration getCompleted() {
            return completed;
        }

        public void setCompleted(Duration completed) {
            this.completed = completed;
        }

        public Duration getCancelled() {
            return cancelled;
        }

        public void setCancelled(Duration cancelled) {
            this.cancelled = cancelled;
        }

        public Duration getDiscarded() {
            return discarded;
        }

        public void setDiscarded(Duration discarded) {
            this.discarded = discarded;
        }
    }

    /** Options of one kind handled by a bean here ({@link dev.skipjack.KindOptions}). */
    public static class Kind {

        /** How long one attempt may run before it is interrupted and fails. Default: no timeout. */
        private Duration timeout;

        /** Attempts of jobs enqueued without their own before a failing one is discarded. Default: 25. */
        private Integer maxAttempts;

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }
}
