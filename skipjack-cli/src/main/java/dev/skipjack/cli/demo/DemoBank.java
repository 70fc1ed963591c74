package dev.skipjack.cli.demo;

import dev.skipjack.Backend;
import dev.skipjack.Job;
import dev.skipjack.Outcome;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import javax.sql.DataSource;

/**
 * The balance-transfer example of transactional mode (F-4): accounts whose total never changes,
 * and transfer jobs whose debit, credit and ledger entry commit together with the job's
 * completion. Some transfers crash between debit and credit on their first attempt; if that
 * half-done work were ever kept, money would appear or vanish and the total would show it.
 */
public final class DemoBank {

    static final int ACCOUNTS = 100;
    static final long OPENING_BALANCE = 1_000;
    private static final int MAX_TRANSFER = 100;

    /** Moves {@code amount} between two accounts. {@code crashAfterDebit} stages a crash halfway through, once. */
    public record Transfer(int fromAccount, int toAccount, long amount, boolean crashAfterDebit) {
    }

    /** The transfer ledger against the jobs table: each completed transfer job must have exactly one entry. */
    public record LedgerCheck(long entries, long distinctJobs, long entriesOfJobsNotCompleted, long completedTransfers) {
        public boolean exactlyOnce() {
            return entries == completedTransfers && distinctJobs == entries && entriesOfJobsNotCompleted == 0;
        }
    }

    private final DataSource dataSource;
    private final String accountsTable;
    private final String ledgerTable;
    /** SQLite: no FOR UPDATE (the transaction holds the only write lock already) and no TRUNCATE. */
    private final boolean sqlite;

    /**
     * {@code schema} must already be a validated identifier (the Skipjack builder checked it);
     * {@code backend} is the client's {@link dev.skipjack.Skipjack#backend()}.
     */
    public DemoBank(DataSource dataSource, String schema, Backend backend) {
        this.dataSource = dataSource;
        this.sqlite = backend == Backend.SQLITE;
        // MariaDB and MySQL quote with backticks (double quotes are string literals there).
        char quote = backend == Backend.MARIADB || backend == Backend.MYSQL ? '`' : '"';
        this.accountsTable = quote + schema + quote + ".demo_accounts";
        this.ledgerTable = quote + schema + quote + ".demo_transfers";
    }

    static Transfer randomTransfer(Random random) {
        int from = 1 + random.nextInt(ACCOUNTS);
        int to = 1 + (from + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS; // any account but the paying one
        return new Transfer(from, to, 1 + random.nextInt(MAX_TRANSFER), random.nextInt(10) == 0);
    }

    /** Creates the tables if needed and opens every account afresh with the opening balance. */
    public void openAccounts() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + accountsTable
                    + " (id int PRIMARY KEY, balance bigint NOT NULL CHECK (balance >= 0))");
            s.execute("CREATE TABLE IF NOT EXISTS " + ledgerTable
                    + " (job_id bigint NOT NULL, from_account int NOT NULL, to_account int NOT NULL, amount bigint NOT NULL)");
            // One table per statement: MariaDB's TRUNCATE takes one, SQLite has none.
            s.execute((sqlite ? "DELETE FROM " : "TRUNCATE ") + accountsTable);
            s.execute((sqlite ? "DELETE FROM " : "TRUNCATE ") + ledgerTable);
            StringBuilder insert = new StringBuilder("INSERT INTO " + accountsTable + " (id, balance) VALUES ");
            for (int id = 1; id <= ACCOUNTS; id++) {
                insert.append(id == 1 ? "" : ", ").append('(').append(id).append(", ").append(OPENING_BALANCE).append(')');
            }
            s.execute(insert.toString());
        }
    }

    /** The sum of all balances: what transfers must never change. */
    public long totalBalance() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(sum(balance), 0) FROM " + accountsTable)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** @param jobsTable the client's {@link dev.skipjack.Skipjack#jobsTable()} */
    public LedgerCheck checkLedger(String jobsTable) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT"
                     + " (SELECT count(*) FROM " + ledgerTable + "),"
                     + " (SELECT count(DISTINCT job_id) FROM " + ledgerTable + "),"
                     + " (SELECT count(*) FROM " + ledgerTable + " t LEFT JOIN " + jobsTable + " j ON j.id = t.job_id"
                     + "   WHERE j.id IS NULL OR j.state <> 'completed'),"
                     + " (SELECT count(*) FROM " + jobsTable + " WHERE kind = '" + DemoWorkload.TRANSFER.name() + "'"
                     + "   AND state = 'completed')")) {
            rs.next();
            return new LedgerCheck(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
        }
    }

    /** The transactional handler: everything here commits with the job's completion, or none of it does. */
    Outcome transfer(Job<Transfer> job, Connection tx) throws SQLException {
        Transfer t = job.args();
        long available = lockAccountsAndReadBalance(tx, t);
        if (available < t.amount()) {
            return Outcome.discard("insufficient funds: account " + t.fromAccount() + " has " + available
                    + ", the transfer needs " + t.amount());
        }
        addToBalance(tx, t.fromAccount(), -t.amount());
        if (t.crashAfterDebit() && job.attempt() == 1) {
            throw new DemoWorkload.SimulatedFailure("crashed after debiting account " + t.fromAccount());
        }
        addToBalance(tx, t.toAccount(), t.amount());
        try (PreparedStatement ps = tx.prepareStatement(
                "INSERT INTO " + ledgerTable + " (job_id, from_account, to_account, amount) VALUES (?, ?, ?, ?)")) {
            ps.setLong(1, job.id());
            ps.setInt(2, t.fromAccount());
            ps.setInt(3, t.toAccount());
            ps.setLong(4, t.amount());
            ps.executeUpdate();
        }
        return Outcome.complete();
    }

    /**
     * Locks both accounts in id order, so two transfers between the same accounts in opposite
     * directions queue up instead of deadlocking; returns the balance of the paying account.
     */
    private long lockAccountsAndReadBalance(Connection tx, Transfer t) throws SQLException {
        long fromBalance = -1;
        try (PreparedStatement ps = tx.prepareStatement(
                "SELECT id, balance FROM " + accountsTable + " WHERE id IN (?, ?) ORDER BY id" + (sqlite ? "" : " FOR UPDATE"))) {
            ps.setInt(1, t.fromAccount());
            ps.setInt(2, t.toAccount());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (rs.getInt(1) == t.fromAccount()) {
                        fromBalance = rs.getLong(2);
                    }
                }
            }
        }
        if (fromBalance < 0) {
            throw new IllegalStateException("account " + t.fromAccount() + " does not exist");
        }
        return fromBalance;
    }

    private void addToBalance(Connection tx, int account, long delta) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("UPDATE " + accountsTable + " SET balance = balance + ? WHERE id = ?")) {
            ps.setLong(1, delta);
            ps.setInt(2, account);
            ps.executeUpdate();
        }
    }
}
