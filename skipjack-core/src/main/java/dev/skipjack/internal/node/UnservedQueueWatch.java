package dev.skipjack.internal.node;

import dev.skipjack.NodeInfo;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Names the queues whose jobs nobody will run: available jobs due for longer than a threshold in a
 * queue that no node running now serves (a typo in a queue name, a handler registered on a node
 * that serves other queues, a row inserted by hand). Warns once per queue until a node serves it
 * or its stale jobs are gone. Runs on the maintenance leader only, once a minute.
 */
public final class UnservedQueueWatch {

    private static final Logger log = LoggerFactory.getLogger(UnservedQueueWatch.class);
    public static final Duration INTERVAL = Duration.ofMinutes(1);

    /** A queue with available jobs nobody claims. */
    public record Unserved(String queue, long jobs, Instant oldestDue, Set<String> servedQueues) {
    }

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final Duration threshold;
    private final Set<String> warned = new HashSet<>();

    public UnservedQueueWatch(DataSource dataSource, SqlStatements sql, Duration threshold) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.threshold = threshold;
    }

    /** One round: warns about queues newly found unserved; returns every queue unserved now. */
    public synchronized List<Unserved> check() throws SQLException {
        List<NodeInfo> nodes = NodeRegistry.list(dataSource, sql);
        Set<String> served = new TreeSet<>();
        nodes.forEach(n -> served.addAll(n.queueNames()));
        Instant now = dev.skipjack.internal.cron.CronTicker.databaseNow(dataSource, sql);
        List<Unserved> unserved = new ArrayList<>();
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("stale_available_queues"))) {
            sql.dialect().setInstant(ps, 1, now.minus(threshold));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String queue = rs.getString(1);
                    if (!served.contains(queue)) {
                        unserved.add(new Unserved(queue, rs.getLong(2), sql.dialect().getInstant(rs, 3), served));
                    }
                }
            }
        }
        Set<String> unservedNow = new HashSet<>();
        for (Unserved u : unserved) {
            unservedNow.add(u.queue());
            if (warned.add(u.queue())) {
                log.warn("queue '{}' has {} available jobs, the oldest due since {}, and no node running now serves it"
                                + " (served: {}); start a worker with Builder.queue(\"{}\", n), or enqueue to a served queue",
                        u.queue(), u.jobs(), u.oldestDue(), served.isEmpty() ? "none" : served, u.queue());
            }
        }
        warned.retainAll(unservedNow);
        return unserved;
    }
}
