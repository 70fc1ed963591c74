package dev.skipjack.lab.failover;

import dev.skipjack.cli.CliException;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A pg_auto_failover cluster of its own on local ports: a monitor and two data nodes
 * ({@code node1}, {@code node2}) in a temporary directory, each run by {@code pg_autoctl run} as a
 * child of this JVM. PostgreSQL and pg_autoctl refuse to run as root, so as root every command runs
 * as the {@code postgres} OS user ({@code runuser}) in a directory that user owns. pg_autoctl's
 * own configuration and state go under that directory too ({@code XDG_*}), not into a home
 * directory. {@link #close} (also run by a shutdown hook, so an interrupted run cleans up) stops
 * every process it started and deletes the directory.
 *
 * <p>Everything listens on 127.0.0.1 only; connections are trusted (no password), as the cluster
 * lives only as long as the run.
 */
public final class AutoFailoverCluster implements AutoCloseable {

    /** The database the data nodes create for the application. */
    public static final String DATABASE = "skipjack";
    /** The data nodes, in the order they join: node1 starts as the primary. */
    public static final List<String> NODES = List.of("node1", "node2");
    private static final String MONITOR = "monitor";
    private static final String OS_USER = "postgres";
    private static final Duration CHANGE_TIMEOUT = Duration.ofMinutes(3);

    private final Path dir;
    private final Path logDir;
    private final Path pgBin;
    private final boolean async;
    private final boolean asRoot;
    private final PrintWriter out;
    private String urlParameters = "";
    private final int monitorPort;
    private final Map<String, Integer> nodePorts = new LinkedHashMap<>();
    /** The {@code pg_autoctl run} process of each service, as this JVM started it (runuser when root). */
    private final Map<String, Process> services = new LinkedHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook = new Thread(this::stopAndDelete, "failover-cluster-cleanup");

    private AutoFailoverCluster(Path dir, Path logDir, Path pgBin, boolean async, PrintWriter out) throws IOException {
        this.dir = dir;
        this.logDir = logDir;
        this.pgBin = pgBin;
        this.async = async;
        this.out = out;
        this.asRoot = "root".equals(System.getProperty("user.name"));
        List<Integer> ports = freePorts(1 + NODES.size());
        this.monitorPort = ports.get(0);
        for (int i = 0; i < NODES.size(); i++) {
            nodePorts.put(NODES.get(i), ports.get(i + 1));
        }
    }

    /**
     * Creates and starts the monitor and both data nodes, and waits until node1 is the primary and
     * node2 its secondary.
     *
     * @param pgBin  the PostgreSQL server binaries ({@code pg_ctl}, {@code postgres})
     * @param async  the standbys leave the replication quorum: commits do not wait for a standby
     * @param logDir where each pg_autoctl command and service logs (kept after the run)
     */
    public static AutoFailoverCluster start(Path pgBin, boolean async, Path logDir, PrintWriter out)
            throws IOException, InterruptedException {
        requireInstalled(pgBin);
        Path dir = Files.createTempDirectory("skipjack-failover-");
        AutoFailoverCluster cluster = new AutoFailoverCluster(dir, logDir, pgBin, async, out);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.create();
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Fails with the packages to install when pg_autoctl or the server binaries are missing. */
    public static void requireInstalled(Path pgBin) {
        if (findOnPath("pg_autoctl").isEmpty()) {
            throw new CliException("pg_autoctl is not installed: apt-get install pg-auto-failover-cli"
                    + " postgresql-15-auto-failover");
        }
        if (!Files.isExecutable(pgBin.resolve("pg_ctl"))) {
            throw new CliException("no PostgreSQL server binaries in " + pgBin + " (pg_ctl): give --pg-bin, or"
                    + " apt-get install postgresql-15-auto-failover, which brings PostgreSQL 15");
        }
    }

    private static Optional<Path> findOnPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(p -> Path.of(p, program)).filter(Files::isExecutable).findFirst();
    }

    private void create() throws IOException, InterruptedException {
        if (asRoot) {
            UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
            UserPrincipal user = users.lookupPrincipalByName(OS_USER);
            GroupPrincipal group = users.lookupPrincipalByGroupName(OS_USER);
            PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class);
            view.setOwner(user);
            view.setGroup(group);
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        out.printf("pg_auto_failover cluster in %s: monitor on 127.0.0.1:%d, %s%n", dir, monitorPort,
                String.join(", ", nodePorts.entrySet().stream().map(e -> e.getKey() + " on 127.0.0.1:" + e.getValue()).toList()));
        out.flush();
        autoctl("create-monitor", List.of("create", "monitor", "--pgdata", pgdata(MONITOR).toString(),
                "--pgport", Integer.toString(monitorPort), "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl",
                "--pgctl", pgBin.resolve("pg_ctl").toString()));
        // create monitor has no --listen: it would listen on every address.
        autoctl("config-monitor", List.of("config", "set", "--pgdata", pgdata(MONITOR).toString(),
                "postgresql.listen_addresses", "127.0.0.1"));
        startService(MONITOR, List.of("run", "--pgdata", pgdata(MONITOR).toString()));
        awaitState(s -> true, "the monitor to answer");
        for (String node : NODES) {
            List<String> args = new ArrayList<>(List.of("create", "postgres", "--pgdata", pgdata(node).toString(),
                    "--pgport", Integer.toString(nodePorts.get(node)), "--pghost", "127.0.0.1", "--listen", "127.0.0.1",
                    "--hostname", "127.0.0.1", "--name", node, "--dbname", DATABASE, "--monitor", monitorUri(),
                    "--auth", "trust", "--no-ssl", "--pgctl", pgBin.resolve("pg_ctl").toString()));
            if (async) {
                // Out of the quorum, a standby is never waited for: synchronous_standby_names stays ''.
                args.addAll(List.of("--replication-quorum", "false"));
            }
            args.add("--run");
            startService(node, args);
            if (node.equals(NODES.get(0))) {
                awaitState(s -> s.nodes().size() == 1 && s.nodes().get(0).settledIn("single"), node + " to run alone");
            }
        }
        awaitState(ClusterState::stable, "node1 primary, node2 secondary");
    }

    /** The monitor's connection string for the data nodes. */
    private String monitorUri() {
        return "postgres://autoctl_node@127.0.0.1:" + monitorPort + "/pg_auto_failover?sslmode=disable";
    }

    private Path pgdata(String service) {
        return dir.resolve(service);
    }

    /** The application's URL: every data node, and the driver picks the one that takes writes. */
    public String jdbcUrl() {
        StringBuilder hosts = new StringBuilder();
        for (int port : nodePorts.values()) {
            hosts.append(hosts.isEmpty() ? "" : ",").append("127.0.0.1:").append(port);
        }
        return "jdbc:postgresql://" + hosts + "/" + DATABASE + "?targetServerType=primary" + urlParameters;
    }

    /**
     * Adds driver parameters to {@link #jdbcUrl} ({@code name=value&...}, e.g. {@code
     * hostRecheckSeconds=2}); call before anything connects.
     */
    public void urlParameters(String parameters) {
        requireUrlParameters(parameters);
        this.urlParameters = parameters.isEmpty() ? "" : "&" + parameters;
    }

    /** Refuses anything but {@code name=value} pairs joined by {@code &} (empty: none). */
    public static void requireUrlParameters(String parameters) {
        if (!parameters.isEmpty() && !parameters.matches("[A-Za-z]+=[A-Za-z0-9._-]*(&[A-Za-z]+=[A-Za-z0-9._-]*)*")) {
            throw new CliException("--url-parameters must be name=value pairs joined by &, not '" + parameters + "'");
        }
    }

    /** The database user of the application: the nodes trust local connections. */
    public String user() {
        return OS_USER;
    }

    /** Whether the standbys were left out of the replication quorum. */
    public boolean async() {
        return async;
    }

    /** The port of a data node. */
    public int port(String node) {
        return nodePorts.get(node);
    }

    /** What the monitor says now. */
    public ClusterState state() throws SQLException {
        try (Connection c = connect(monitorPort, "pg_auto_failover");
             PreparedStatement ps = c.prepareStatement(FailoverStatements.load("monitor_state"));
             ResultSet rs = ps.executeQuery()) {
            List<ClusterState.Node> nodes = new ArrayList<>();
            while (rs.next()) {
                nodes.add(new ClusterState.Node(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4)));
            }
            return new ClusterState(nodes);
        }
    }

    /** Polls the monitor until {@code done} holds; an unreachable monitor counts as not done yet. */
    public ClusterState awaitState(Predicate<ClusterState> done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + CHANGE_TIMEOUT.toNanos();
        long nextCheckpoint = System.nanoTime();
        String last = "no answer from the monitor";
        while (System.nanoTime() - deadline < 0) {
            try {
                ClusterState s = state();
                if (done.test(s)) {
                    return s;
                }
                last = s.toString();
                if (System.nanoTime() - nextCheckpoint > 0 && s.writable().isPresent()) {
                    // A standby may be waiting in pg_basebackup for the primary's spread checkpoint.
                    checkpoint(s.writable().get().port());
                    nextCheckpoint = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                }
            } catch (SQLException e) {
                last = e.getMessage();
            }
            if (closed.get()) {
                throw new InterruptedException("the cluster was closed");
            }
            Thread.sleep(250);
        }
        throw new CliException("waited " + CHANGE_TIMEOUT.toSeconds() + " s for " + what + "; last: " + last
                + " (logs in " + logDir + ")");
    }

    private static void checkpoint(int port) throws SQLException {
        try (Connection c = connect(port, DATABASE); java.sql.Statement st = c.createStatement()) {
            st.execute(FailoverStatements.load("checkpoint"));
        }
    }

    /**
     * The replication settings in effect: the formation's {@code number_sync_standbys} on the
     * monitor, and on the node taking writes {@code synchronous_standby_names} and
     * {@code synchronous_commit}, as one line.
     */
    public String replicationSettings() throws SQLException {
        ClusterState s = state();
        String primary = s.writable().map(n -> n.name() + " (" + n.reported() + ")").orElse("none");
        int syncStandbys;
        try (Connection c = connect(monitorPort, "pg_auto_failover");
             PreparedStatement ps = c.prepareStatement(FailoverStatements.load("monitor_number_sync_standbys"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            syncStandbys = rs.getInt(1);
        }
        if (s.writable().isEmpty()) {
            return "number_sync_standbys=" + syncStandbys + ", no primary";
        }
        try (Connection c = connect(s.writable().get().port(), DATABASE);
             PreparedStatement ps = c.prepareStatement(FailoverStatements.load("primary_replication_settings"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return "number_sync_standbys=" + syncStandbys + ", replication_quorum=" + !async + ", primary " + primary
                    + ": synchronous_standby_names='" + rs.getString(1) + "' synchronous_commit=" + rs.getString(2);
        }
    }

    /** The versions: pg_autoctl's first line and the data nodes' PostgreSQL. */
    public String versions() throws IOException, InterruptedException, SQLException {
        String autoctl = Files.readString(autoctl("version", List.of("--version"))).lines().findFirst().orElse("?");
        try (Connection c = connect(port(NODES.get(0)), DATABASE);
             PreparedStatement ps = c.prepareStatement(FailoverStatements.load("primary_replication_settings"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return autoctl + "; PostgreSQL " + rs.getString(3);
        }
    }

    /**
     * A planned failover ({@code pg_autoctl perform failover}): the monitor demotes the primary,
     * lets the secondary catch up and promotes it. Returns when the command does (it waits for the
     * new primary).
     */
    public void performFailover() throws IOException, InterruptedException {
        autoctl("perform-failover", List.of("perform", "failover", "--pgdata", pgdata(MONITOR).toString()));
    }

    /**
     * A hard stop of a data node, like its host losing power: SIGKILL to its pg_autoctl and every
     * process under it (the postmaster and its backends) at once, with no chance to shut down.
     */
    public synchronized void hardStop(String node) throws InterruptedException {
        Process p = services.remove(node);
        if (p == null) {
            throw new IllegalStateException(node + " is not running");
        }
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : all) {
            h.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(t -> h).join();
        }
    }

    /**
     * Pauses (SIGSTOP) or resumes (SIGCONT) the WAL receiver of a standby, so it falls behind the
     * primary as over a slow network; returns how many processes were signalled (0 or 1).
     */
    public synchronized int signalWalReceiver(String node, boolean pause) throws IOException, InterruptedException {
        Process p = services.get(node);
        if (p == null) {
            return 0;
        }
        int signalled = 0;
        for (ProcessHandle h : p.descendants().toList()) {
            // A PostgreSQL child names its role in its process title, which is its command line.
            Path cmdline = Path.of("/proc", Long.toString(h.pid()), "cmdline");
            String title;
            try {
                title = Files.readString(cmdline, StandardCharsets.UTF_8);
            } catch (IOException gone) {
                continue;
            }
            if (title.contains("walreceiver")) {
                Process kill = new ProcessBuilder("kill", pause ? "-STOP" : "-CONT", Long.toString(h.pid()))
                        .redirectErrorStream(true).start();
                kill.getInputStream().readAllBytes();
                if (kill.waitFor() == 0) {
                    signalled++;
                }
            }
        }
        return signalled;
    }

    /** How far a standby is behind its primary, in WAL bytes. */
    public record StandbyLag(long unsentBytes, long unflushedBytes) {
    }

    /** On the node at {@code port}: how far its standby is behind (see standby_lag_bytes.sql). */
    public StandbyLag standbyLag(int port) throws SQLException {
        try (Connection c = connect(port, DATABASE);
             PreparedStatement ps = c.prepareStatement(FailoverStatements.load("standby_lag_bytes"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new StandbyLag(rs.getLong(1), rs.getLong(2));
        }
    }

    /** Starts a stopped data node again: pg_autoctl rejoins it as a secondary (pg_rewind if needed). */
    public void restart(String node) throws IOException {
        startService(node, List.of("run", "--pgdata", pgdata(node).toString()));
    }

    private synchronized void startService(String name, List<String> args) throws IOException {
        if (closed.get()) {
            throw new IllegalStateException("the cluster was closed");
        }
        ProcessBuilder pb = new ProcessBuilder(command(args)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve(name + ".log").toFile()));
        environment(pb);
        services.put(name, pb.start());
    }

    /** Runs one pg_autoctl command to its end; its output goes to {@code <logDir>/<name>.log}, returned. */
    private Path autoctl(String name, List<String> args) throws IOException, InterruptedException {
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command(args)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        environment(pb);
        Process p = pb.start();
        if (!p.waitFor(CHANGE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new CliException("pg_autoctl " + String.join(" ", args) + " did not finish in "
                    + CHANGE_TIMEOUT.toSeconds() + " s; see " + log);
        }
        if (p.exitValue() != 0) {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            throw new CliException("pg_autoctl " + String.join(" ", args) + " failed (exit " + p.exitValue() + "): "
                    + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())) + "; see " + log);
        }
        return log;
    }

    /** pg_autoctl with its arguments, as the {@code postgres} OS user when this JVM is root. */
    private List<String> command(List<String> args) {
        List<String> command = new ArrayList<>();
        if (asRoot) {
            command.addAll(List.of("runuser", "-u", OS_USER, "--", "env"));
            environmentVariables().forEach((k, v) -> command.add(k + "=" + v));
        }
        command.add("pg_autoctl");
        command.addAll(args);
        return command;
    }

    private void environment(ProcessBuilder pb) {
        if (!asRoot) {
            pb.environment().putAll(environmentVariables());
        }
    }

    /** pg_autoctl keeps its configuration and state under XDG directories: this cluster's own. */
    private Map<String, String> environmentVariables() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", dir.toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("XDG_DATA_HOME", dir.resolve("data").toString());
        env.put("XDG_RUNTIME_DIR", dir.resolve("run").toString());
        env.put("PG_CONFIG", pgBin.resolve("pg_config").toString());
        return env;
    }

    private static Connection connect(int port, String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database
                + "?user=" + OS_USER + "&connectTimeout=5&socketTimeout=10&ApplicationName=skipjack-failover-lab");
    }

    private static List<Integer> freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0);
                sockets.add(s);
                ports.add(s.getLocalPort());
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    @Override
    public void close() {
        stopAndDelete();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Run from the hook itself, or the JVM is exiting: nothing to remove.
        }
    }

    /**
     * Stops every service (SIGTERM to pg_autoctl, which stops its PostgreSQL; SIGKILL to whatever
     * is left after 30 s) and deletes the directory. Once only, from close or the shutdown hook.
     */
    private synchronized void stopAndDelete() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<String> order = new ArrayList<>(services.keySet());
        order.remove(MONITOR);
        order.add(MONITOR); // the monitor last: the nodes report to it as they stop
        for (String name : order) {
            Process p = services.get(name);
            // Before the parent exits: its orphans would no longer be its descendants.
            List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
            all.add(p.toHandle());
            // pg_autoctl (the runuser's child when root) stops its PostgreSQL on SIGTERM.
            all.stream().filter(h -> h.info().command().map(c -> c.endsWith("pg_autoctl")).orElse(false))
                    .findFirst().orElse(p.toHandle()).destroy();
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        }
        services.clear();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            out.println("could not delete " + dir + ": " + e.getMessage());
            out.flush();
        }
    }
}
