package dev.skipjack.internal.concurrency;

import dev.skipjack.internal.enqueue.ConcurrencyOrder;
import dev.skipjack.internal.notify.InsertNotifications;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Admits the waiting jobs of concurrency keys (F-12, F-13): a job with a key is inserted
 * {@code waiting}, holding none of its key's slots, and this makes it {@code available} while fewer
 * jobs of the key than its limit hold one. A job holds a slot from its admission until it ends
 * (count_concurrency_holders.sql), so at most the limit of a key's jobs are available or running at
 * any moment, across every node, and the claim itself knows nothing of keys: the unkeyed path pays
 * nothing. A rate-limited key counts instead the jobs admitted and not started or started within
 * its period (count_rate_holders.sql), so at most its limit start per period.
 *
 * <p>Each key is admitted in a short transaction of its own that first locks the key's row
 * (lock_concurrency_key.sql): two admissions of one key take turns, and the second counts what the
 * first admitted. Nothing is counted in a column that could drift: the holders are read from the
 * jobs' states, so a killed worker's job gives its slot back by the same rescue that re-queues or
 * discards it, and a slot cannot leak.
 *
 * <p>Admission runs right after what may free or need a slot (an enqueue's commit, a keyed job's
 * end) and, as the safety net for everything else (a caller's transaction, a rescue, an operator,
 * a job coming due, a node that died in between), in every node's admission pass each poll
 * interval ({@link #admitDue}).
 */
public final class ConcurrencyAdmission {

    private static final Logger log = LoggerFactory.getLogger(ConcurrencyAdmission.class);

    /** Most jobs one key admits in one transaction; a larger limit fills over several. */
    static final int MAX_ADMITTED = 1_000;
    /** Most keys one pass looks at; the next pass takes the next ones, in key order. */
    static final int KEYS_PER_PASS = 500;
    /** Keys failing one after the other that end a round: past this many the database, not a key, is in trouble. */
    static final int FAILURES_ENDING_A_ROUND = 5;
    /** More keys than this failing at once: forget them (their next failure warns again). */
    private static final int MAX_TRACKED_FAILING_KEYS = 10_000;

    private final SqlStatements sql;
    private final DataSource dataSource;
    /** The jobs table's NOTIFY channel, or null when notifications are off. */
    private final String notifyChannel;
    /** Keys whose last admission failed: a key that keeps failing warns once, then logs at DEBUG. */
    private final Set<String> failingKeys = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The last key the previous pass took when it took a full pass, else "": where this node's next pass starts. */
    private volatile String passCursor = "";

    /** @param notifyChannel the jobs table's channel, or null when notifications are off */
    public ConcurrencyAdmission(SqlStatements sql, DataSource dataSource, String notifyChannel) {
        this.sql = sql;
        this.dataSource = dataSource;
        this.notifyChannel = notifyChannel;
    }

    /**
     * Admits what the keys can take, each in its own transaction on a connection of the pool.
     * Returns the queues that got an available job. A failure is logged, not thrown: the jobs are
     * stored, and the next pass admits them.
     */
    public Set<String> admitQuietly(Collection<String> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        try (Connection c = Transactions.autoCommit(dataSource)) {
            return admitQuietly(c, keys);
        } catch (SQLException e) {
            return failed(keys, e);
        }
    }

    /** As {@link #admitQuietly(Collection)}, on {@code c}, which is in auto-commit. */
    public Set<String> admitQuietly(Connection c, Collection<String> keys) {
        Set<String> queues = new HashSet<>();
        Exception ending = admit(c, keys, queues);
        if (ending != null) {
            failed(keys, ending);
        }
        return queues;
    }

    private static Set<String> failed(Collection<String> keys, Exception e) {
        log.warn("could not admit the waiting jobs of concurrency keys {}; the next admission pass will: {}",
                keys, e.toString());
        return Set.of();
    }

    /**
     * The admission pass: of the keys with a waiting job, up to {@link #KEYS_PER_PASS} in key order
     * from where this node's last pass stopped, those with one that is due, so that with more keys than that each one
     * gets its turn. Tells {@code wake} the queues that got jobs; a key that fails is logged and
     * tried again next pass, and only a failure that ended the round (a lost connection) is thrown,
     * after the wake-up, so the maintenance service backs off.
     */
    public Set<String> admitDue(java.util.function.Consumer<Set<String>> wake) throws SQLException {
        try (Connection c = Transactions.autoCommit(dataSource)) {
            List<String> keys = new ArrayList<>();
            int looked = 0;
            String lastLooked = "";
            try (PreparedStatement ps = c.prepareStatement(sql.get("due_concurrency_keys"))) {
                ps.setString(1, passCursor);
                ps.setInt(2, KEYS_PER_PASS);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        lastLooked = rs.getString(1);
                        looked++;
                        if (rs.getInt(2) == 1) {
                            keys.add(lastLooked);
                        }
                    }
                }
            }
            Set<String> queues = new HashSet<>();
            Exception failure = admit(c, keys, queues); // a key's own failure is logged, not thrown
            // A full pass goes on after the last key it looked at next time; a shorter one reached
            // the end. Also after a key failed: one key that keeps failing must not keep the pass
            // on the same keys, and it gets its turn again with the others.
            passCursor = looked == KEYS_PER_PASS ? lastLooked : "";
            if (!queues.isEmpty()) {
                wake.accept(queues);
            }
            if (failure instanceof SQLException e) {
                throw e;
            }
            if (failure != null) {
                throw (RuntimeException) failure;
            }
            return queues;
        }
    }

    /**
     * Admits each key in its own short transaction on {@code c}, which is in auto-commit, adding to
     * {@code queues} those that got jobs. A key that fails (a trigger or a constraint refusing its
     * lock row, a lock wait) holds back no other: its failure is logged (at WARN the first time in
     * a row for that key), the keys after it are admitted too, and the queues of every admitted key
     * are notified; the next pass tries it again. Returns the failure that ended the round early,
     * or null: a lost connection, an interrupt (the node stops), or {@link #FAILURES_ENDING_A_ROUND}
     * keys failing in a row (the database, not a key, is in trouble).
     */
    private Exception admit(Connection c, Collection<String> keys, Set<String> queues) {
        int failuresInARow = 0;
        Exception ending = null;
        // Sorted: a batch admitting several keys locks them one at a time anyway; the order keeps
        // two passes over the same keys from meeting halfway.
        for (String key : new TreeSet<>(keys)) {
            try {
                queues.addAll(sql.dialect().inShortTransaction(c, tx -> admitKey(tx, key)));
                failuresInARow = 0;
                if (!failingKeys.isEmpty() && failingKeys.remove(key)) {
                    log.info("concurrency key {} is admitted again", key);
                }
            } catch (SQLException | RuntimeException e) {
                if (failingKeys.add(key)) {
                    log.warn("could not admit the waiting jobs of concurrency key {}; the next admission pass tries"
                            + " again: {}", key, e.toString());
                } else {
                    log.debug("could not admit the waiting jobs of concurrency key {} again: {}", key, e.toString());
                }
                if (++failuresInARow >= FAILURES_ENDING_A_ROUND || isConnectionLost(c, e)
                        || Thread.currentThread().isInterrupted()) {
                    ending = e;
                    break;
                }
            }
        }
        if (failingKeys.size() > MAX_TRACKED_FAILING_KEYS) {
            failingKeys.clear();
        }
        notifyAdmitted(c, queues);
        return ending;
    }

    /** SQLSTATE class 08, or a connection closed (a failed rollback abandons it): every later key would fail too. */
    private static boolean isConnectionLost(Connection c, Exception e) {
        if (e instanceof SQLException sqlFailure && sqlFailure.getSQLState() != null
                && sqlFailure.getSQLState().startsWith("08")) {
            return true;
        }
        try {
            return c.isClosed();
        } catch (SQLException closedCheck) {
            return true;
        }
    }

    /**
     * Tells every node's listener (PostgreSQL) which queues got jobs, after their admission
     * committed, as the promoter does for due jobs: a keyed job's enqueue notifies while the job is
     * still waiting, so the listeners found nothing then, and nodes other than this one would start
     * it only at their next poll. This process's own fetchers are woken by the caller.
     */
    private void notifyAdmitted(Connection c, Set<String> queues) {
        if (notifyChannel == null || queues.isEmpty()) {
            return;
        }
        try {
            InsertNotifications.send(c, sql, notifyChannel, queues);
        } catch (SQLException e) {
            log.debug("could not notify the queues {} of admitted jobs; other nodes find them at their next poll: {}",
                    queues, e.toString());
        }
    }

    private Set<String> admitKey(Connection tx, String key) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(sql.get("lock_concurrency_key"))) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
        boolean inOrder = ConcurrencyOrder.isInOrder(key);
        String waiting = inOrder ? "waiting_for_key_in_order" : "waiting_for_key_by_priority";
        // The first in line says the limit (jobs of one key may ask for different ones).
        List<Candidate> head = candidates(tx, waiting, key, 1);
        if (head.isEmpty() || !head.get(0).due()) {
            return Set.of();
        }
        Candidate first = head.get(0);
        long free = first.max() - (first.periodMillis() != null ? rateHolders(tx, key, first.periodMillis()) : holders(tx, key));
        if (free <= 0) {
            return Set.of();
        }
        List<Candidate> admitted = inOrder || free == 1 ? head
                : candidates(tx, waiting, key, (int) Math.min(free, MAX_ADMITTED));
        Set<String> queues = new HashSet<>();
        try (PreparedStatement ps = tx.prepareStatement(sql.get("admit_job"))) {
            for (Candidate c : admitted) {
                ps.setLong(1, c.id());
                ps.addBatch();
                queues.add(c.queue());
            }
            ps.executeBatch();
        }
        return queues;
    }

    /** Jobs of the key holding a slot (count_concurrency_holders.sql). */
    private long holders(Connection tx, String key) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(sql.get("count_concurrency_holders"))) {
            ps.setString(1, key);
            return count(ps);
        }
    }

    /** Jobs of a rate-limited key counting against its rate (count_rate_holders.sql). */
    private long rateHolders(Connection tx, String key, long periodMillis) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(sql.get("count_rate_holders"))) {
            ps.setString(1, key);
            ps.setLong(2, periodMillis);
            return count(ps);
        }
    }

    private static long count(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<Candidate> candidates(Connection tx, String statement, String key, int limit) throws SQLException {
        List<Candidate> out = new ArrayList<>();
        try (PreparedStatement ps = tx.prepareStatement(sql.get(statement))) {
            ps.setString(1, key);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long period = rs.getLong(5);
                    Long periodMillis = rs.wasNull() ? null : period; // before any other column is read
                    out.add(new Candidate(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getInt(4) == 1, periodMillis));
                }
            }
        }
        return out;
    }

    /**
     * A waiting job of a key: its id, queue, the limit it asks for, whether it is due, and the
     * period of its rate limit (null for a limit of slots).
     */
    private record Candidate(long id, String queue, int max, boolean due, Long periodMillis) {
    }
}
