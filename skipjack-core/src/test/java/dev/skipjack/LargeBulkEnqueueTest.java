package dev.skipjack;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bulk enqueue of large args is cut into statements by size as well as by rows: 40 jobs of
 * 200 KB args are 8 MB, one statement over a 4 MB max_allowed_packet on MySQL and MariaDB, which
 * refused the whole enqueue every time (and 5,000 such rows pass a gigabyte on PostgreSQL). Every
 * job is stored, in request order, with its args intact, on every backend.
 */
class LargeBulkEnqueueTest extends EveryBackendTest {

    record Blob(int n, String data) {
    }

    private static final int JOBS = 40;
    private static final String DATA = "x".repeat(200_000);

    @Test
    void aBulkEnqueueOfLargeArgsIsStoredWhole() throws Exception {
        Skipjack reader = client(builder().kind(JobKind.of("blob", Blob.class))); // migrates
        boolean mysqlFamily = backend().backend() == Backend.MARIADB || backend().backend() == Backend.MYSQL;
        long packetBefore = mysqlFamily ? queryLong("SELECT @@GLOBAL.max_allowed_packet") : 0;
        if (mysqlFamily) {
            execute("SET GLOBAL max_allowed_packet = 4194304");
        }
        // Connections read the server's limit when they connect: a pool opened after the change.
        List<Long> ids;
        try (HikariDataSource fresh = backend().newDataSource(2)) {
            Skipjack s = Skipjack.builder(fresh).schema(schema).kind(JobKind.of("blob", Blob.class)).build();
            List<JobRequest> requests = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                requests.add(JobRequest.of("blob", new Blob(i, DATA)));
            }
            ids = s.enqueueAll(requests);
            s.stop(Duration.ZERO);
        } finally {
            if (mysqlFamily) {
                execute("SET GLOBAL max_allowed_packet = " + packetBefore);
            }
        }

        assertThat(ids).hasSize(JOBS).doesNotHaveDuplicates().isSorted();
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).isEqualTo(JOBS);
        for (int i = 0; i < JOBS; i++) {
            assertThat(queryLong("SELECT " + backend().jsonInt("args", "n") + " FROM " + jobsTable() + " WHERE id = ?",
                    ids.get(i))).as("job %d holds request %d", ids.get(i), i).isEqualTo(i);
        }
        for (long id : List.of(ids.get(0), ids.get(JOBS - 1))) {
            assertThat(reader.admin().job(id).orElseThrow().argsJson()).as("job %d's args", id).contains(DATA);
        }
    }
}
