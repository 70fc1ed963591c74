package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.notify.InsertNotifications;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Makes scheduled and retryable jobs available when their run_at comes, so the claim only ever
 * looks at available rows and its index holds nothing else. Safe on every node at once. It wakes
 * this node's fetchers of the queues that got jobs and, with notifications on, announces them
 * on the jobs table's channel like an insert does, so idle workers of other nodes start them
 * within milliseconds instead of at their next poll.
 */
public final class DueJobPromoter {

    private static final Logger log = LoggerFactory.getLogger(DueJobPromoter.class);
    static final int BATCH = 5_000;

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final Consumer<Set<String>> onPromoted;
    /** Channel to NOTIFY the promoted queues on, or null when notifications are off. */
    private final String notifyChannel;

    /**
     * @param onPromoted    told which queues got newly available jobs, to wake their fetchers
     * @param notifyChannel the jobs table's channel, or null when notifications are off
     */
    public DueJobPromoter(DataSource dataSource, SqlStatements sql, Consumer<Set<String>> onPromoted,
                          String notifyChannel) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.onPromoted = onPromoted;
        this.notifyChannel = notifyChannel;
    }

    public int promoteAll() throws Exception {
        Set<String> queues = new HashSet<>();
        int total = BatchedStatement.runUntilDrained(dataSource, sql, "promote_due_jobs", BATCH,
                row -> queues.add(row.getString(2)));
        if (!queues.isEmpty()) {
            onPromoted.accept(queues);
            if (notifyChannel != null) {
                // After the promotion committed: a listener woken now finds the jobs available.
                try (Connection c = Transactions.autoCommit(dataSource)) {
                    InsertNotifications.send(c, sql, notifyChannel, queues);
                }
            }
        }
        return total;
    }
}
