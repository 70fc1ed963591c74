package dev.skipjack.internal.maintenance;

import dev.skipjack.internal.sql.SqlStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
        Set<String> queues = new HashSet<>();
        int total = BatchedStatement.runUntilDrained(dataSource, sql.get("promote_due_jobs"), BATCH,
                row -> queues.add(row.getString(1)));
        if (!queues.isEmpty()) {
            onPromoted.accept(queues);
        }
        return total;
    }
}
