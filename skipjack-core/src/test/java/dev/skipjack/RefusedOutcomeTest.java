package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outcome the database refuses to store (here a trigger refuses an error text, as a CHECK
 * constraint, a column limit or an application's own trigger could) holds back no other job's:
 * the batch it came in is written again row by row, and the refused outcome in a plainer form
 * (error class {@code UnstorableOutcome}, the database's reason as its message). Every job runs
 * once and ends where its outcome says; none stays running until its lease runs out to run again.
 */
class RefusedOutcomeTest extends EveryBackendTest {

    record Args(int n) {
    }

    /** The trigger refuses any row whose errors hold this text; the handler of job 7 throws it. */
    private static final String MARKER = "XYZZY-REFUSE-ME";
    private static final int JOBS = 40;
    private static final int REFUSED = 7;

    private void refuseErrorsWithTheMarker() {
        String jobs = jobsTable();
        switch (backend) {
            case POSTGRESQL -> {
                execute("CREATE FUNCTION " + table("refuse_marked") + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NEW.errors::text LIKE '%" + MARKER + "%' THEN"
                        + " RAISE EXCEPTION 'row refused by a trigger' USING ERRCODE = 'check_violation'; END IF;"
                        + " RETURN NEW; END $$");
                execute("CREATE TRIGGER refuse_marked BEFORE UPDATE ON " + jobs
                        + " FOR EACH ROW EXECUTE FUNCTION " + table("refuse_marked") + "()");
            }
            case MARIADB, MYSQL -> execute("CREATE TRIGGER " + table("refuse_marked") + " BEFORE UPDATE ON " + jobs
                    + " FOR EACH ROW BEGIN IF NEW.errors LIKE '%" + MARKER + "%' THEN"
                    + " SIGNAL SQLSTATE '23000' SET MESSAGE_TEXT = 'row refused by a trigger'; END IF; END");
            case SQLITE -> execute("CREATE TRIGGER refuse_marked BEFORE UPDATE ON skipjack_jobs"
                    + " WHEN NEW.errors LIKE '%" + MARKER + "%'"
                    + " BEGIN SELECT RAISE(ABORT, 'row refused by a trigger'); END");
        }
    }

    @Test
    void aRefusedOutcomeIsStoredPlainerAndHoldsBackNoOtherJob() {
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        Skipjack s = client(builder().queue("default", 4).handler(JobKind.of("k", Args.class), job -> {
            runs.computeIfAbsent(job.args().n(), n -> new AtomicInteger()).incrementAndGet();
            if (job.args().n() == REFUSED) {
                throw new IllegalStateException(MARKER);
            }
            return Outcome.complete();
        }));
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 1; n <= JOBS; n++) {
            requests.add(JobRequest.of(JobKind.of("k", Args.class), new Args(n), EnqueueOptions.defaults().withMaxAttempts(1)));
        }
        List<Long> ids = s.enqueueAll(requests);
        // After the insert: MariaDB 11.4.5 fails a multi-row INSERT ... SELECT into a table with a
        // BEFORE trigger ("Column 'queue' cannot be null"), a server bug (docs/backends.md).
        refuseErrorsWithTheMarker();

        s.start();
        await("every job ended", Duration.ofSeconds(30),
                () -> JobRow.all(dataSource, schema).stream().allMatch(JobRow::isTerminal));

        List<JobRow> rows = JobRow.all(dataSource, schema);
        JobRow refused = JobRow.load(dataSource, schema, ids.get(REFUSED - 1));
        assertThat(refused.state()).isEqualTo("discarded");
        assertThat(refused.errors()).hasSize(1);
        assertThat(refused.lastError().errorClass()).isEqualTo("UnstorableOutcome");
        assertThat(refused.lastError().message()).contains("row refused by a trigger").doesNotContain(MARKER);
        assertThat(rows).filteredOn(row -> row.id() != refused.id())
                .hasSize(JOBS - 1)
                .allSatisfy(row -> {
                    assertThat(row.state()).isEqualTo("completed");
                    assertThat(row.attempt()).isEqualTo(1);
                });
        assertThat(runs).hasSize(JOBS);
        assertThat(runs.values()).as("every job ran once").allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
    }
}
