package dev.skipjack;

import dev.skipjack.internal.maintenance.LeaderElector;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leadership of maintenance: one leader at a time across nodes, handed over when the leader stops
 * renewing (on the database clock) or releases, and held with plain rows and single statements,
 * never a session-level advisory lock, so it works behind PgBouncer in transaction mode.
 */
class LeaderElectionTest extends EveryBackendTest {

    private SqlStatements sql;

    @BeforeEach
    void migrated() {
        client(builder());
        sql = Dialect.of(backend().backend()).statements(new TableNames(schema, "skipjack_"), new DatabaseClock());
    }

    @Test
    void oneLeaderAtATimeAndReleaseHandsOver() throws Exception {
        LeaderElector a = new LeaderElector(dataSource, sql, "node-a", Duration.ofSeconds(30));
        LeaderElector b = new LeaderElector(dataSource, sql, "node-b", Duration.ofSeconds(30));
        assertThat(a.tryAcquire()).isTrue();
        assertThat(b.tryAcquire()).as("b while a leads").isFalse();
        assertThat(a.tryAcquire()).as("a renews").isTrue();
        assertThat(b.tryAcquire()).isFalse();
        assertThat(b.isLeader()).isFalse();
        if (backend() == TestBackend.POSTGRESQL) {
            assertThat(queryLong("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"))
                    .as("session-level advisory locks held (none may be, for PgBouncer transaction mode)").isZero();
        }

        a.release();
        assertThat(a.isLeader()).isFalse();
        assertThat(b.tryAcquire()).as("b after a released").isTrue();
        assertThat(a.tryAcquire()).isFalse();
    }

    @Test
    void leaderThatStopsRenewingLosesLeadershipOnTheDatabaseClock() throws Exception {
        LeaderElector a = new LeaderElector(dataSource, sql, "node-a", Duration.ofMillis(300));
        LeaderElector b = new LeaderElector(dataSource, sql, "node-b", Duration.ofMillis(300));
        assertThat(a.tryAcquire()).isTrue();
        assertThat(b.tryAcquire()).isFalse();
        // a stops renewing (crashed or partitioned): b takes over once the lease ends.
        await("b to take over", Duration.ofSeconds(5), () -> {
            try {
                return b.tryAcquire();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(a.isLeader()).as("a's own view: its term ended before the database lease did").isFalse();
        assertThat(a.tryAcquire()).isFalse();
    }

    @Test
    void crashedRowCannotBeStolenWhileItsLeaseRuns() throws Exception {
        execute("INSERT INTO " + table("skipjack_leader") + " VALUES ('maintenance', 'ghost', " + nowPlus(Duration.ofHours(1)) + ")");
        LeaderElector a = new LeaderElector(dataSource, sql, "node-a", Duration.ofSeconds(30));
        assertThat(a.tryAcquire()).isFalse();
        execute("UPDATE " + table("skipjack_leader") + " SET lease_until = " + nowPlus(Duration.ofSeconds(-1)));
        assertThat(a.tryAcquire()).isTrue();
    }
}
