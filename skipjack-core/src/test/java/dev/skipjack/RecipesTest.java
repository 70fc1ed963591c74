package dev.skipjack;

import dev.skipjack.support.DatabaseTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recipes of docs/recipes.md, run as written there (PostgreSQL): each test is one recipe, so a
 * recipe that stops working fails here first.
 */
class RecipesTest extends DatabaseTest {

    /** The args class a producer and a worker share (in a module both depend on). */
    record SendEmail(String to, String subject) {
    }

    /** The handle both share: the name and the args type in one constant. */
    static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);

    static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void bulkEnqueue() {
        Skipjack skipjack = client(builder().kind(SEND_EMAIL));

        // recipe: bulk enqueue
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            requests.add(JobRequest.of(SEND_EMAIL, new SendEmail("user" + i + "@example.com", "Welcome")));
        }
        List<Long> ids = skipjack.enqueueAll(requests); // one transaction, multi-row inserts of 5,000
        // end recipe

        assertThat(ids).hasSize(10_000).doesNotHaveDuplicates();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable() + " WHERE kind = 'send-email'")).isEqualTo(10_000);
    }

    @Test
    void aProducerOnlyServiceEnqueuesThroughTheHandle() {
        Skipjack worker = client(builder().queue("default", 4)
                .handler(SEND_EMAIL, job -> Outcome.complete()));
        worker.start();

        // recipe: producer-only service
        Skipjack producer = Skipjack.builder(dataSource).schema(schema).build(); // no handler, never started
        long id = producer.enqueue(SEND_EMAIL, new SendEmail("ada@example.com", "Welcome"));
        // end recipe

        awaitState(worker, id, JobState.COMPLETED, WAIT);
    }

    @Test
    void plainSqlFromAnotherServiceWakesTheWorkersAtOnce() throws Exception {
        // Polling every 10 minutes: only the notification can make the job run within the wait.
        Skipjack worker = client(builder().pollInterval(Duration.ofMinutes(10)).queue("mail", 2)
                .handler(SEND_EMAIL, job -> Outcome.complete()));
        worker.start();
        awaitListening();

        long id;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            // recipe: plain SQL
            String jobs = "\"" + schema + "\".skipjack_jobs";
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + jobs
                    + " (queue, kind, args) VALUES (?, ?, ?::jsonb) RETURNING id")) {
                insert.setString(1, "mail");
                insert.setString(2, "send-email");
                insert.setString(3, "{\"to\": \"ada@example.com\", \"subject\": \"Welcome\"}");
                try (var rs = insert.executeQuery()) {
                    rs.next();
                    id = rs.getLong(1);
                }
            }
            try (PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                notify.setString(1, schema + ".skipjack_jobs"); // channel: <schema>.<prefix>jobs
                notify.setString(2, "mail");                     // payload: the queues, comma-separated
                notify.execute();
            }
            c.commit(); // the job and the notification go out together
            // end recipe
        }
        awaitState(worker, id, JobState.COMPLETED, WAIT);
    }

    @Test
    void aPlainSqlRowWhoseArgsDoNotReadIsDiscardedWithTheReason() {
        Skipjack worker = client(builder().queue("mail", 2).handler(SEND_EMAIL, job -> Outcome.complete()));
        worker.start();
        execute("INSERT INTO \"" + schema + "\".skipjack_jobs (queue, kind, args) VALUES"
                + " ('mail', 'send-email', '{\"to\": [1, 2]}')");
        long id = queryLong("SELECT max(id) FROM " + jobsTable());
        JobInfo job = awaitState(worker, id, JobState.DISCARDED, WAIT);
        assertThat(job.errors()).last().satisfies(e -> assertThat(e.errorClass()).isEqualTo("InvalidArgs"));
    }

    /** The worker's LISTEN is in place once its listener connection last ran it. */
    private void awaitListening() {
        await("the worker to LISTEN", WAIT, () -> queryLong("SELECT count(*) FROM pg_stat_activity"
                + " WHERE query LIKE ? AND datname = current_database()", "%LISTEN \"" + schema + ".skipjack_jobs\"%") > 0);
    }
}
