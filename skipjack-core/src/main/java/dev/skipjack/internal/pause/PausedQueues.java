package dev.skipjack.internal.pause;

import dev.skipjack.internal.sql.SqlStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * This node's view of which queues an operator paused (F-25). Refreshed from the queues table on
 * a timer, so a pause made anywhere reaches every node within {@link #REFRESH_INTERVAL} plus one
 * claim; fetchers ask {@link #isPaused} before each claim, which costs no database round trip.
 */
public final class PausedQueues {

    /** How often every node reads the paused queue names. */
    public static final Duration REFRESH_INTERVAL = Duration.ofMillis(500);

    private static final Logger log = LoggerFactory.getLogger(PausedQueues.class);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final Consumer<Set<String>> onResumed;
    private volatile Set<String> paused = Set.of();
    private volatile boolean warned;
    /** Numbers the reads in the order they start. */
    private final AtomicLong reads = new AtomicLong();
    /** The number of the read {@link #paused} comes from; guarded by {@code this}. */
    private long publishedRead;

    /** {@code onResumed} is told which queues were just resumed, so their fetchers look for work at once. */
    public PausedQueues(DataSource dataSource, SqlStatements sql, Consumer<Set<String>> onResumed) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.onResumed = onResumed;
    }

    public boolean isPaused(String queue) {
        return paused.contains(queue);
    }

    /**
     * Reads the paused names; on failure keeps the last known ones and logs once. Two reads may run
     * at once (the timer's, and the one right after this node paused a queue), and only a read that
     * started after the one already published replaces it: a timer's read that began before the
     * pause committed, and ended after the pausing node's own read, would otherwise put the queue
     * back to running on this node until the next round, and its fetchers claim from it meanwhile.
     */
    public void refresh() {
        long read = reads.incrementAndGet();
        Set<String> now = new HashSet<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.get("paused_queues"));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                now.add(rs.getString(1));
            }
            warned = false;
        } catch (Exception e) {
            if (!warned) {
                warned = true;
                log.warn("cannot read paused queues (is the schema migrated?); keeping the last known set {}: {}",
                        paused, e.toString());
            }
            return;
        }
        Set<String> resumed;
        synchronized (this) {
            if (read < publishedRead) {
                return; // a later read is already published
            }
            publishedRead = read;
            resumed = new HashSet<>(paused);
            resumed.removeAll(now);
            paused = Set.copyOf(now);
        }
        if (!resumed.isEmpty()) {
            onResumed.accept(resumed);
        }
    }
}
