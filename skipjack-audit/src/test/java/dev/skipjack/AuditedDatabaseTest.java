package dev.skipjack;

import dev.skipjack.internal.sql.TableNames;
import dev.skipjack.support.DatabaseTest;
import dev.skipjack.audit.AuditChecker;
import dev.skipjack.audit.AuditReport;
import dev.skipjack.audit.AuditTables;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A {@link DatabaseTest} with the execution audit of skipjack-audit on this test's schema. The
 * core's DatabaseTest cannot offer these helpers: the audit lives in skipjack-audit, which
 * depends on the core.
 */
public abstract class AuditedDatabaseTest extends DatabaseTest {

    /** The execution audit of this test's schema (RELIABILITY.md), written by audit handlers. */
    protected AuditTables auditTables() {
        return new AuditTables(backend().backend(), new TableNames(schema, "skipjack_"));
    }

    protected void createAudit() {
        try (Connection c = dataSource.getConnection()) {
            auditTables().create(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The quoted name of the audit's executions table. */
    protected String audit() {
        return auditTables().executionsTable();
    }

    /** Records an injected fault against {@code worker} ({@code "*"}: all) at the database clock. */
    protected void recordFault(String worker, String kind) {
        try (Connection c = dataSource.getConnection()) {
            auditTables().recordFault(c, worker, kind);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every entry of every job's error history in this test's schema, read in the backend's own SQL. */
    protected List<AuditTables.JobError> jobErrors() {
        try (Connection c = dataSource.getConnection()) {
            return auditTables().jobErrors(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs the independent audit checker over this test's schema. */
    protected AuditReport checkAudit(AuditChecker.Mode mode, long enqueued) {
        try (Connection c = dataSource.getConnection()) {
            return new AuditChecker(backend().backend(), new TableNames(schema, "skipjack_")).check(c, mode, enqueued);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
