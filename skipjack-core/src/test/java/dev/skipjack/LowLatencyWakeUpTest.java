package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.LogCapture;
import dev.skipjack.support.StatementLog;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * F-16: with LISTEN/NOTIFY an idle worker starts a job enqueued by another client within
 * milliseconds, although its poll interval is a minute; the listener survives losing its
 * connection; with notifications off (PgBouncer transaction mode) polling alone runs every job.
 */
class LowLatencyWakeUpTest extends DatabaseTest {

    record Args(int n) {
    }

    private static final Duration NEVER_POLLS = Duration.ofMinutes(1);

    /** The started worker: polls once a minute, so only a notification can start a job quickly. */
    private Skipjack worker(boolean listenNotify, Duration poll, BlockingQueue<Long> started) {
        Skipjack s = client(builder().pollInterval(poll).promoteInterval(NEVER_POLLS).listenNotify(listenNotify)
                .queue("default", 4)
                .handler(JobKind.of("work", Args.class), job -> {
                    started.add(System.nanoTime());
                    return Outcome.complete();
                }));
        s.start();
        return s;
    }

    /** Another client: its enqueues cannot wake the worker's fetchers in-process. */
    private Skipjack producer(boolean listenNotify) {
        return client(builder().listenNotify(listenNotify).kind(JobKind.of("work", Args.class)));
    }

    private long listenerConnections() {
        return queryLong("SELECT count(*) FROM pg_stat_activity WHERE query ~ ?", listenQuery());
    }

    /** The text of listen.sql as the server shows it, after its comment lines. */
    private String listenQuery() {
        return "(^|\n)LISTEN \"" + schema + "\\.skipjack_jobs\"\\s*$";
    }

    @Test
    void idleWorkerStartsJobFromAnotherClientWithinMilliseconds() throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        worker(true, NEVER_POLLS, started);
        Skipjack producer = producer(true);
        await("the listener to LISTEN", Duration.ofSeconds(10), () -> listenerConnections() == 1);
        // The first job may still meet the poll every worker makes at start; the other 19 cannot.
        List<Long> latenciesMicros = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long before = System.nanoTime();
            producer.enqueue("work", new Args(i));
            Long at = started.poll(5, TimeUnit.SECONDS);
            assertThat(at).as("job %d started long before the one-minute poll", i).isNotNull();
            latenciesMicros.add((at - before) / 1_000);
        }
        latenciesMicros.sort(null);
        // Generous for a shared 2-core machine; polling alone would take a minute.
        assertThat(latenciesMicros.get(latenciesMicros.size() / 2)).as("median µs").isLessThan(200_000);
        assertThat(latenciesMicros.get(latenciesMicros.size() - 1)).as("max µs").isLessThan(2_000_000);
    }

    /**
     * A keyed job is inserted waiting, so the enqueue's notification finds nothing to claim; the
     * producer's admission then notifies the queue it made a job available in (F-12, F-13).
     */
    @Test
    void idleWorkerStartsAKeyedJobFromAnotherClientWithinMilliseconds() throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        worker(true, NEVER_POLLS, started);
        Skipjack producer = producer(true);
        await("the listener to LISTEN", Duration.ofSeconds(10), () -> listenerConnections() == 1);
        for (int i = 0; i < 5; i++) {
            producer.enqueue("work", new Args(i), EnqueueOptions.defaults().withConcurrencyKey("tenant-" + i, 1));
            assertThat(started.poll(5, TimeUnit.SECONDS)).as("keyed job %d started long before the one-minute poll", i)
                    .isNotNull();
        }
    }

    @Test
    void jobEnqueuedInCallersTransactionWakesWorkerAtCommitOnly() throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        worker(true, NEVER_POLLS, started);
        Skipjack producer = producer(true);
        await("the listener to LISTEN", Duration.ofSeconds(10), () -> listenerConnections() == 1);
        producer.enqueue("work", new Args(0));
        assertThat(started.poll(5, TimeUnit.SECONDS)).as("warm-up job: the start-up poll is behind us").isNotNull();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            producer.enqueue(c, "work", new Args(1));
            assertThat(started.poll(300, TimeUnit.MILLISECONDS)).as("nothing runs before commit").isNull();
            c.commit();
            c.setAutoCommit(true);
        }
        assertThat(started.poll(5, TimeUnit.SECONDS)).as("started after commit, before any poll").isNotNull();
    }

    @Test
    void oneNotificationPerEnqueueTransactionNotOnePerJob() throws Exception {
        Skipjack producer = client(builder().kind(JobKind.of("work", Args.class)).queue("default", 1).queue("other", 1));
        try (Listening listening = new Listening()) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < 12_000; i++) {
                batch.add(JobRequest.of("work", new Args(i),
                        EnqueueOptions.defaults().withQueue(i % 2 == 0 ? "default" : "other")));
            }
            producer.enqueueAll(batch);
            assertThat(listening.received()).extracting(PGNotification::getParameter).containsExactly("default,other");

            // Jobs for later announce nothing: the promoter wakes workers when they come due.
            producer.enqueue("work", new Args(1), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
            assertThat(listening.received()).isEmpty();
        }
    }

    /**
     * A single job's enqueue is one statement, its notification folded in, and in auto-commit no
     * BEGIN/COMMIT around it: one round trip where it was three (insert, notify, commit).
     */
    @Test
    void aSingleJobIsOneStatementWithItsNotificationAndNoCommit() throws Exception {
        StatementLog log = new StatementLog();
        Skipjack producer = producerRecordingInto(log);
        try (Listening listening = new Listening()) {
            log.clear();

            long id = producer.enqueue("work", new Args(1));

            assertThat(log.prepared()).as("statements of one enqueue").hasSize(1);
            assertThat(log.commits()).as("explicit commits").isZero();
            assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ? AND state = 'available'", id))
                    .isEqualTo(1);
            assertThat(listening.received()).extracting(PGNotification::getParameter).containsExactly("default");

            // A batch of one queue's jobs due now folds its notification into its insert too.
            log.clear();
            producer.enqueueAll(List.of(JobRequest.of("work", new Args(2)), JobRequest.of("work", new Args(3))));
            assertThat(log.prepared()).as("statements of a two-job enqueue").hasSize(1);
            assertThat(log.commits()).as("a batch keeps its transaction").isEqualTo(1);
            assertThat(listening.received()).extracting(PGNotification::getParameter).containsExactly("default");
        }
    }

    /**
     * A single job whose notification cannot ride in its insert (a unique key; a {@code runAt}
     * given, even in the past) is two statements, insert and notify: those keep a transaction
     * around them, in the client's own enqueue and on a caller's connection in auto-commit, so a
     * failed notification cannot leave a committed job behind an error.
     */
    @Test
    void aSingleJobNotifiedByAStatementOfItsOwnKeepsItsTransaction() throws Exception {
        StatementLog log = new StatementLog();
        Skipjack producer = producerRecordingInto(log);
        EnqueueOptions dueAlready = EnqueueOptions.defaults().withRunAt(java.time.Instant.now().minusSeconds(1));
        try (Listening listening = new Listening()) {
            log.clear();
            producer.enqueue("work", new Args(1), dueAlready);
            assertThat(log.prepared()).as("insert and notify").hasSize(2);
            assertThat(log.commits()).as("one transaction around them").isEqualTo(1);
            assertThat(listening.received()).hasSize(1);

            log.clear();
            producer.enqueue("work", new Args(2), EnqueueOptions.defaults().withUnique(Unique.byKey("once")));
            assertThat(log.commits()).as("a unique job's insert and notify, one transaction").isEqualTo(1);
            assertThat(listening.received()).hasSize(1);

            try (Connection caller = log.wrap(dataSource).getConnection()) {
                log.clear();
                producer.enqueue(caller, "work", new Args(3), dueAlready);
                assertThat(caller.getAutoCommit()).as("the caller's auto-commit given back").isTrue();
            }
            assertThat(log.commits()).as("on a caller's connection in auto-commit, too").isEqualTo(1);
            assertThat(listening.received()).hasSize(1);
        }
    }

    /** The folded notification is still the transaction's: a rolled-back enqueue announces nothing. */
    @Test
    void aRolledBackSingleJobEnqueueNotifiesNobody() throws Exception {
        Skipjack producer = producer(true);
        try (Listening listening = new Listening(); Connection caller = dataSource.getConnection()) {
            caller.setAutoCommit(false);
            long id = producer.enqueue(caller, "work", new Args(1));
            assertThat(listening.received()).as("nothing before the caller's transaction ends").isEmpty();
            caller.rollback();
            caller.setAutoCommit(true);
            assertThat(listening.received()).as("nothing for a rolled-back job").isEmpty();
            assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE id = ?", id)).isZero();
        }
    }

    @Test
    void delayedJobPromotedByAnotherNodeWakesAnIdleWorker() throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        // The worker neither polls nor promotes in time: only the other node's promotion can start it.
        worker(true, NEVER_POLLS, started);
        Skipjack otherNode = client(builder().listenNotify(true).promoteInterval(Duration.ofMillis(50))
                .queue("elsewhere", 1).kind(JobKind.of("work", Args.class)));
        otherNode.start();
        await("the listener to LISTEN", Duration.ofSeconds(10), () -> listenerConnections() == 2);
        started.clear();

        otherNode.enqueue("work", new Args(1), EnqueueOptions.defaults().withDelay(Duration.ofMillis(500)));

        assertThat(started.poll(10, TimeUnit.SECONDS)).as("started by the promotion's notification, not a poll")
                .isNotNull();
    }

    @Test
    void listenerReconnectsAfterLosingItsConnection() throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        worker(true, NEVER_POLLS, started);
        Skipjack producer = producer(true);
        await("the listener to LISTEN", Duration.ofSeconds(10), () -> listenerConnections() == 1);
        long firstPid = queryLong("SELECT pid FROM pg_stat_activity WHERE query ~ ?", listenQuery());
        assertThat(queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(?::int)) t", firstPid)).isEqualTo(1);
        await("the listener to LISTEN on a new connection", Duration.ofSeconds(15), () -> listenerConnections() == 1
                // No row while the new connection is between LISTEN and its first receive: not yet.
                && queryLong("SELECT coalesce(max(pid), " + firstPid + ") FROM pg_stat_activity WHERE query ~ ?",
                        listenQuery()) != firstPid);
        started.clear();
        // The first may meet the poll that follows reconnecting; the next ones need notifications.
        for (int i = 0; i < 3; i++) {
            producer.enqueue("work", new Args(i));
            assertThat(started.poll(5, TimeUnit.SECONDS)).as("job %d woken by a notification after reconnecting", i)
                    .isNotNull();
        }
    }

    @Test
    void aConnectionLostWhileListeningIsNotLentToTheApplicationAsHealthy() throws Exception {
        // Its own pool, so every idle connection in it can be borrowed at once right after the loss.
        try (LogCapture log = new LogCapture();
             HikariDataSource pool = backend().newDataSource(4);
             Skipjack worker = Skipjack.builder(pool).schema(schema).pollInterval(NEVER_POLLS)
                     .promoteInterval(NEVER_POLLS).listenNotify(true).queue("default", 1)
                     .handler(JobKind.of("work", Args.class), job -> Outcome.complete()).build()) {
            worker.migrate();
            worker.start();
            await("the listener to LISTEN", Duration.ofSeconds(10), () -> listenerConnections() == 1);
            long lostPid = queryLong("SELECT pid FROM pg_stat_activity WHERE query ~ ?", listenQuery());
            queryLong("SELECT count(*) FROM (SELECT pg_terminate_backend(?::int)) t", lostPid);
            // Until the listener listens again, borrow every idle connection of the pool, as a busy
            // application would, and use each: none may be the one that died under the listener.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (listenerConnections() != 1 || queryLong("SELECT coalesce(max(pid), " + lostPid
                    + ") FROM pg_stat_activity WHERE query ~ ?", listenQuery()) == lostPid) {
                assertThat(System.nanoTime()).as("the listener to LISTEN again").isLessThan(deadline);
                List<Connection> borrowed = new ArrayList<>();
                try {
                    while (pool.getHikariPoolMXBean().getIdleConnections() > 0) {
                        Connection c = pool.getConnection();
                        borrowed.add(c);
                        try (Statement st = c.createStatement()) {
                            st.execute("SELECT 1");
                        }
                    }
                } finally {
                    for (Connection c : borrowed) {
                        c.close();
                    }
                }
            }
            // Skipjack's own fetchers and maintenance borrow from the pool too; they log what they meet.
            // (A log line starts "time [thread] LEVEL"; the listener's own lines say it lost the connection.)
            assertThat(log.lines()).as("only the listener met the lost connection")
                    .filteredOn(line -> line.matches("\\S+ \\[[^]]+] .*") && !line.contains("[skipjack-listener]")
                            && (line.contains("I/O error") || line.contains("marked as broken")))
                    .isEmpty();
        }
    }

    @Test
    void withNotificationsOffPollingAloneRunsEveryJobAndNothingListens() throws Exception {
        BlockingQueue<Long> started = new LinkedBlockingQueue<>();
        Skipjack worker = worker(false, Duration.ofMillis(100), started);
        Skipjack producer = producer(false);
        try (Listening spy = new Listening()) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ids.add(producer.enqueue("work", new Args(i)));
            }
            for (long id : ids) {
                awaitState(worker, id, JobState.COMPLETED, Duration.ofSeconds(10));
            }
            assertThat(spy.received()).as("no NOTIFY with notifications off").isEmpty();
        }
        assertThat(listenerConnections()).as("no LISTEN connection").isZero();
        Map<JobState, Long> counts = worker.countByState();
        assertThat(counts.get(JobState.COMPLETED)).isEqualTo(20);
    }

    /** A producer whose connections record their statements and commits in {@code log}. */
    private Skipjack producerRecordingInto(StatementLog log) {
        return client(Skipjack.builder(log.wrap(dataSource)).schema(schema).kind(JobKind.of("work", Args.class)));
    }

    /**
     * A connection listening on the jobs table's channel. Closing it unlistens and drops what it
     * had received but not read, so nothing reaches the next test that borrows the connection.
     */
    private final class Listening implements AutoCloseable {
        private final Connection connection;
        private final PGConnection pg;

        Listening() throws Exception {
            connection = dataSource.getConnection();
            try (Statement s = connection.createStatement()) {
                s.execute("LISTEN \"" + schema + ".skipjack_jobs\"");
            }
            pg = connection.unwrap(PGConnection.class);
        }

        /** Notifications that arrive within half a second. */
        List<PGNotification> received() throws Exception {
            List<PGNotification> all = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() < end) {
                PGNotification[] got = pg.getNotifications(100);
                if (got != null) {
                    all.addAll(Arrays.asList(got));
                }
            }
            return all;
        }

        @Override
        public void close() throws Exception {
            try (connection; Statement s = connection.createStatement()) {
                s.execute("UNLISTEN *");
                pg.getNotifications();
            }
        }
    }
}
