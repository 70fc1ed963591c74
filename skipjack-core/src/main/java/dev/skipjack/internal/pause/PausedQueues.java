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

    /** {@code onResumed} is told which queues were just resumed, so their fetchers look for work at once. */
    public PausedQueues(DataSource dataSource, SqlStatements sql, Consumer<Set<String>> onResumed) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.onResumed = onResumed;
    }

    public boolean isPaused(String queue) {
        return paused.contains(queue);
    }

    /** Reads the paused names; on failure keeps the last known ones and logs once. */
    public void refresh() {
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
        Set<String> resumed = new HashSet<>(paused);
        resumed.removeAll(now);
        paused = Set.copyOf(now);
        if (!resumed.isEmpty()) {
            onResumed.accept(resumed);
        }
    }
}
