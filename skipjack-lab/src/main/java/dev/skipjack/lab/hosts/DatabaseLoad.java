package dev.skipjack.lab.hosts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * What the database went through during one phase of a hosts run, to name its ceiling: the CPU
 * of the server's processes, of the bridge's forwarder, of the hosts' worker JVMs and of this
 * driver (from {@code /proc}), the whole machine's busy share, and, sampled every 500 ms, each host's open connections and the
 * sessions waiting for locks. Start it, run the phase, {@link #stop()} it.
 */
final class DatabaseLoad implements AutoCloseable {

    /** Linux's USER_HZ: /proc times are in these ticks on every architecture this runs on. */
    private static final double TICKS_PER_SECOND = 100;

    /** The figures of one phase. */
    record Figures(double seconds, Double databaseCores, double forwarderCores, double workerCores, double driverCores,
                   double machineBusyPercent,
                   Map<String, Long> peakConnectionsByHost, long lockWaitsMax, double lockWaitsMean,
                   long ungrantedLocksMax, long activeSessionsMax) {

        /** The most connections any one host had open at once. */
        long connectionsPerHost() {
            return peakConnectionsByHost.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    private final DataSource dataSource;
    private final HostsSql sql;
    private final String applicationPattern;
    private final LongSupplier databaseTicks;
    private final LongSupplier forwarderTicks;
    private final LongSupplier workerTicks;
    private final Map<String, Long> peakConnections = new ConcurrentHashMap<>();
    private final Thread thread;
    private final long startNanos = System.nanoTime();
    private final long startDatabaseTicks;
    private final long startForwarderTicks;
    private final long startWorkerTicks;
    private final long startDriverTicks;
    private final long[] startMachine;
    private volatile boolean running = true;
    private long lockWaitsMax;
    private long lockWaitsSum;
    private long samples;
    private long ungrantedMax;
    private long activeMax;

    /**
     * @param databaseTicks CPU ticks of the database server so far, or null when it is not on this
     *                      machine ({@code --url}): its CPU is then not measured
     * @param forwarderTicks CPU ticks of the bridge's forwarder so far
     * @param workerTicks    CPU ticks of the hosts' worker JVMs so far
     */
    DatabaseLoad(DataSource dataSource, HostsSql sql, String applicationPattern, LongSupplier databaseTicks,
                 LongSupplier forwarderTicks, LongSupplier workerTicks) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.applicationPattern = applicationPattern;
        this.databaseTicks = databaseTicks;
        this.forwarderTicks = forwarderTicks;
        this.workerTicks = workerTicks;
        this.startDatabaseTicks = databaseTicks == null ? 0 : databaseTicks.getAsLong();
        this.startForwarderTicks = forwarderTicks.getAsLong();
        this.startWorkerTicks = workerTicks.getAsLong();
        this.startDriverTicks = ticks(ProcessHandle.current().pid());
        this.startMachine = machineTicks();
        this.thread = new Thread(this::sample, "hosts-load-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement connections = c.prepareStatement(sql.get("connections_per_host"));
             PreparedStatement locks = c.prepareStatement(sql.get("lock_waits"))) {
            connections.setString(1, applicationPattern);
            while (running) {
                try (ResultSet rs = connections.executeQuery()) {
                    while (rs.next()) {
                        peakConnections.merge(rs.getString(1), rs.getLong(2), Math::max);
                    }
                }
                try (ResultSet rs = locks.executeQuery()) {
                    rs.next();
                    synchronized (this) {
                        lockWaitsMax = Math.max(lockWaitsMax, rs.getLong(1));
                        lockWaitsSum += rs.getLong(1);
                        ungrantedMax = Math.max(ungrantedMax, rs.getLong(2));
                        activeMax = Math.max(activeMax, rs.getLong(3));
                        samples++;
                    }
                }
                Thread.sleep(500);
            }
        } catch (SQLException e) {
            System.err.println("hosts: the load sampler stopped: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops sampling and returns the phase's figures. */
    Figures stop() throws InterruptedException {
        running = false;
        thread.join(5_000);
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        long[] machine = machineTicks();
        long total = machine[0] - startMachine[0];
        double busy = total == 0 ? 0 : 100.0 * (machine[1] - startMachine[1]) / total;
        Double dbCores = databaseTicks == null ? null
                : (databaseTicks.getAsLong() - startDatabaseTicks) / TICKS_PER_SECOND / seconds;
        double fwdCores = (forwarderTicks.getAsLong() - startForwarderTicks) / TICKS_PER_SECOND / seconds;
        double workerCores = (workerTicks.getAsLong() - startWorkerTicks) / TICKS_PER_SECOND / seconds;
        double driverCores = (ticks(ProcessHandle.current().pid()) - startDriverTicks) / TICKS_PER_SECOND / seconds;
        synchronized (this) {
            return new Figures(seconds, dbCores, fwdCores, workerCores, driverCores, busy, new TreeMap<>(peakConnections), lockWaitsMax,
                    samples == 0 ? 0 : (double) lockWaitsSum / samples, ungrantedMax, activeMax);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (running) {
            stop();
        }
    }

    /** CPU ticks of a process and its live descendants, including their reaped children's. */
    static long treeTicks(long rootPid) {
        return ProcessHandle.of(rootPid).map(root -> ticks(root.pid())
                + root.descendants().mapToLong(d -> ticks(d.pid())).sum()).orElse(0L);
    }

    /** CPU ticks of these processes, including their reaped children's. */
    static long ticksOf(Collection<Long> pids) {
        return pids.stream().mapToLong(DatabaseLoad::ticks).sum();
    }

    /** utime + stime + cutime + cstime of one process; 0 when it is gone. */
    private static long ticks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // Fields after the command name, which is in parentheses and may hold spaces: state is
            // field 3, utime 14, stime 15, cutime 16, cstime 17.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    /** The machine's total and busy (not idle, not waiting for I/O) ticks so far, from /proc/stat. */
    private static long[] machineTicks() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] f = lines.get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new long[] {total, total - idle};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }
}
