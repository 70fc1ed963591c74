package dev.skipjack.internal.node;

import dev.skipjack.NodeInfo;
import dev.skipjack.internal.maintenance.RunFence;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import dev.skipjack.internal.threads.WorkerThreads;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes running now, for operators: each started node refreshes its row every
 * {@link #REFRESH_INTERVAL} and removes it when it stops; a row older than {@link #GONE_AFTER} is a
 * node that died without stopping, left out of the view and deleted after {@link #FORGET_AFTER}.
 */
public final class NodeRegistry {

    public static final Duration REFRESH_INTERVAL = Duration.ofSeconds(5);
    static final Duration GONE_AFTER = Duration.ofSeconds(30);
    static final Duration FORGET_AFTER = Duration.ofHours(1);

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final String workerId;
    private final String queues;
    /** Keeps this run's removal from deleting the row of a later run of the same client (same worker id). */
    private final RunFence fence;
    private final long run;
    /** Whether this run's row was written once: its first round sets started_at, later ones keep it. */
    private volatile boolean registered;
    /** Set by the stop's removal: a refresh finishing after it takes the row away again. */
    private volatile boolean removed;

    public NodeRegistry(DataSource dataSource, SqlStatements sql, String workerId, String queues, RunFence fence, long run) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.workerId = workerId;
        this.queues = queues;
        this.fence = fence;
        this.run = run;
    }

    /** One round: this node's row refreshed, long-dead nodes forgotten. */
    public void refresh() throws SQLException {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("upsert_node"))) {
                ps.setString(1, workerId);
                ps.setString(2, queues);
                ps.setBoolean(3, !registered);
                ps.executeUpdate();
            }
            registered = true;
            try (PreparedStatement ps = c.prepareStatement(sql.get("prune_nodes"))) {
                sql.dialect().setInstant(ps, 1, Instant.now().minus(FORGET_AFTER));
                ps.executeUpdate();
            }
        } finally {
            if (removed) {
                // A round on its way when the node stopped: its row may have been written after the
                // stop's removal.
                WorkerThreads.outsideInterrupt(this::deleteOwnRow);
            }
        }
    }

    /** Takes this node off the view: it stopped. Not once the client has started again (the row is then the new run's). */
    public void remove() {
        removed = true;
        deleteOwnRow();
    }

    private void deleteOwnRow() {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            fence.ifLatest(run, () -> {
                try (PreparedStatement ps = c.prepareStatement(sql.get("delete_node"))) {
                    ps.setQueryTimeout((int) RunFence.WRITE_TIMEOUT.toSeconds());
                    ps.setString(1, workerId);
                    ps.executeUpdate();
                }
            });
        } catch (SQLException e) {
            // The row ages out of the view instead.
        }
    }

    /** The nodes seen in the last {@link #GONE_AFTER} (database clock) with the jobs each runs now. */
    public static List<NodeInfo> list(DataSource dataSource, SqlStatements sql) throws SQLException {
        Map<String, List<NodeInfo.RunningJob>> running = new LinkedHashMap<>();
        List<NodeInfo> nodes = new ArrayList<>();
        try (Connection c = Transactions.autoCommit(dataSource)) {
            Instant now = null;
            List<Object[]> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("list_nodes"))) {
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        now = sql.dialect().getInstant(rs, 5);
                        rows.add(new Object[] {rs.getString(1), rs.getString(2), sql.dialect().getInstant(rs, 3),
                                sql.dialect().getInstant(rs, 4)});
                    }
                }
            }
            if (rows.isEmpty()) {
                return List.of();
            }
            try (PreparedStatement ps = c.prepareStatement(sql.get("list_running_jobs"));
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Instant started = sql.dialect().getInstant(rs, 5);
                    running.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new NodeInfo.RunningJob(
                            rs.getLong(2), rs.getString(3), rs.getString(4), started,
                            started == null ? Duration.ZERO : Duration.between(started, now)));
                }
            }
            for (Object[] r : rows) {
                Instant lastSeen = (Instant) r[3];
                if (Duration.between(lastSeen, now).compareTo(GONE_AFTER) > 0) {
                    continue;
                }
                nodes.add(new NodeInfo((String) r[0], (String) r[1], (Instant) r[2], lastSeen,
                        List.copyOf(running.getOrDefault((String) r[0], List.of()))));
            }
        }
        return nodes;
    }
}
