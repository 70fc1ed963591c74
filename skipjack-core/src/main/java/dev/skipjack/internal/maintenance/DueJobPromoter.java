package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.SqlStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Makes scheduled and retryable jobs available when their run_at comes, so the claim only ever
 * looks at available rows and its index holds nothing else. Safe on every node at once.
 */
public final class DueJobPromoter implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(DueJobPromoter.class);
    static final int BATCH = 5_000;

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final Consumer<Set<String>> onPromoted;

    /** @param onPromoted told which queues got newly available jobs, to wake their fetchers */
    public DueJobPromoter(DataSource dataSource, SqlStatements sql, Consumer<Set<String>> onPromoted) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.onPromoted = onPromoted;
    }

    @Override
    public void run() {
        try {
            promoteAll();
        } catch (Throwable t) {
            log.warn("promoting due jobs failed: {}", t.toString());
        }
    }

    public int promoteAll() throws Exception {
        int total = 0;
        Set<String> queues = new HashSet<>();
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            int n;
            do {
                n = 0;
                try (PreparedStatement ps = c.prepareStatement(sql.get("promote_due_jobs"))) {
                    ps.setInt(1, BATCH);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            queues.add(rs.getString(1));
                            n++;
                        }
                    }
                }
                total += n;
            } while (n == BATCH);
        }
        if (!queues.isEmpty()) {
            onPromoted.accept(queues);
        }
        return total;
    }
}
