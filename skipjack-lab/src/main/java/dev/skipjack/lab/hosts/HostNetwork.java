package dev.skipjack.lab.hosts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Separate hosts on one Linux machine: one network namespace per worker host, each joined by a
 * veth pair to a bridge in a namespace of the database's own, where a forwarder listens on the
 * bridge's address and passes each connection to the database's Unix socket (Unix sockets cross
 * network namespaces; TCP on the root namespace's loopback would not). A worker JVM started
 * with {@link #wrapper} sees only its host's interface: its traffic crosses the bridge, and
 * {@link #cut} takes its link down exactly as a pulled cable would (connections stay open,
 * nothing gets through).
 *
 * <p>Everything it creates is named with {@link #PREFIX}, and root-namespace processes it starts
 * are recorded under {@link #STATE_DIR}, so that {@link #cleanup} removes the leftovers of a run
 * that was killed (kill -9 runs no shutdown hook). Addresses are {@value #SUBNET}.0/24, used
 * only inside these namespaces. Needs root and iproute2's {@code ip netns}; one run per machine
 * at a time ({@link #lock}).
 */
public final class HostNetwork implements AutoCloseable {

    /** The prefix of every namespace and interface this creates (interface names: 15 bytes at most). */
    public static final String PREFIX = "sjh-";
    /** Where the run keeps its lock, the database's socket and data, and the pid files of root-namespace helpers. */
    public static final Path STATE_DIR = Path.of("/tmp/skipjack-hosts");
    static final String SUBNET = "10.213.7";
    /** The database's address on the bridge, the one the workers connect to. */
    public static final String DATABASE_ADDRESS = SUBNET + ".1";
    public static final int DATABASE_PORT = 5432;
    private static final String DATABASE_NAMESPACE = PREFIX + "db";
    private static final String BRIDGE = PREFIX + "br";

    private final int hosts;
    private final List<Process> helpers = new ArrayList<>();

    private HostNetwork(int hosts) {
        this.hosts = hosts;
    }

    /**
     * Takes the machine-wide lock of this command, or fails naming the run that holds it. The lock
     * is released when the JVM ends, however it ends.
     */
    public static FileLock lock() throws IOException {
        Files.createDirectories(STATE_DIR);
        FileChannel channel = FileChannel.open(STATE_DIR.resolve("lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
            channel.close();
            throw new IllegalStateException("another hosts run holds " + STATE_DIR.resolve("lock")
                    + ": one run per machine, as the namespaces' names are fixed");
        }
        return lock;
    }

    /** Why this machine cannot run separate hosts, or empty when it can (root, {@code ip netns}, socat). */
    public static Optional<String> unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("network namespaces need root (running as " + System.getProperty("user.name") + ")");
        }
        try {
            Result r = exec(List.of("ip", "netns", "list"));
            if (r.exit != 0) {
                return Optional.of("'ip netns list' failed: " + r.output.strip());
            }
            Result socat = exec(List.of("socat", "-V"));
            if (socat.exit != 0) {
                return Optional.of("socat is not usable: " + socat.output.strip());
            }
            // Listing works in any container; creating a namespace and a veth pair needs the
            // privileges the command needs (CAP_SYS_ADMIN, CAP_NET_ADMIN): try both, then remove them.
            String probe = PREFIX + "probe" + ProcessHandle.current().pid();
            Result add = exec(List.of("ip", "netns", "add", probe));
            if (add.exit != 0) {
                return Optional.of("cannot create a network namespace here: " + add.output.strip());
            }
            try {
                Result veth = exec(List.of("ip", "-n", probe, "link", "add", "pa", "type", "veth", "peer", "name", "pb"));
                if (veth.exit != 0) {
                    return Optional.of("cannot create a veth pair in a network namespace here: " + veth.output.strip());
                }
            } finally {
                exec(List.of("ip", "netns", "delete", probe));
            }
        } catch (IOException e) {
            return Optional.of("iproute2's ip or socat is not installed: " + e.getMessage());
        }
        return Optional.empty();
    }

    /**
     * Creates the database's namespace with its bridge and {@code hosts} host namespaces linked to
     * it; removes the leftovers of an earlier run first. On failure removes what it made.
     */
    public static HostNetwork create(int hosts) {
        if (hosts < 1 || hosts > 200) {
            throw new IllegalArgumentException("hosts must be 1 to 200, not " + hosts);
        }
        cleanup();
        HostNetwork network = new HostNetwork(hosts);
        try {
            ip("netns", "add", DATABASE_NAMESPACE);
            ip("-n", DATABASE_NAMESPACE, "link", "set", "lo", "up");
            ip("-n", DATABASE_NAMESPACE, "link", "add", BRIDGE, "type", "bridge");
            ip("-n", DATABASE_NAMESPACE, "addr", "add", DATABASE_ADDRESS + "/24", "dev", BRIDGE);
            ip("-n", DATABASE_NAMESPACE, "link", "set", BRIDGE, "up");
            for (int i = 1; i <= hosts; i++) {
                String ns = namespace(i);
                ip("netns", "add", ns);
                ip("-n", ns, "link", "set", "lo", "up");
                // Created in the root namespace, then each end moved where it belongs: nothing stays behind.
                ip("link", "add", ns, "type", "veth", "peer", "name", bridgePort(i));
                ip("link", "set", ns, "netns", ns);
                ip("link", "set", bridgePort(i), "netns", DATABASE_NAMESPACE);
                ip("-n", DATABASE_NAMESPACE, "link", "set", bridgePort(i), "master", BRIDGE);
                ip("-n", DATABASE_NAMESPACE, "link", "set", bridgePort(i), "up");
                ip("-n", ns, "addr", "add", address(i) + "/24", "dev", ns);
                ip("-n", ns, "link", "set", ns, "up");
            }
        } catch (RuntimeException e) {
            cleanup();
            throw e;
        }
        return network;
    }

    public int hosts() {
        return hosts;
    }

    /** The namespace of host {@code i} (1-based). */
    public static String namespace(int i) {
        return PREFIX + "h" + i;
    }

    /** The bridge's end of host {@code i}'s link, in the database's namespace. */
    private static String bridgePort(int i) {
        return PREFIX + "h" + i + "-br";
    }

    static String address(int i) {
        return SUBNET + "." + (10 + i);
    }

    /** The command prefix that runs a program on host {@code i}'s network: {@code ip netns exec} execs it. */
    public List<String> wrapper(int i) {
        checkHost(i);
        return List.of("ip", "netns", "exec", namespace(i));
    }

    /**
     * Starts the database's listener on {@value #DATABASE_ADDRESS}:{@value #DATABASE_PORT}, passing
     * every connection to the Unix socket {@code socket} (the embedded server's own, or the
     * forwarder of {@link #forwardToTcp}), and waits until it listens.
     */
    public void listen(Path socket) throws IOException, InterruptedException {
        startHelper("listener", List.of("ip", "netns", "exec", DATABASE_NAMESPACE, "socat",
                "TCP-LISTEN:" + DATABASE_PORT + ",bind=" + DATABASE_ADDRESS + ",fork,reuseaddr,backlog=512",
                "UNIX-CONNECT:" + socket));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!exec(List.of("ip", "netns", "exec", DATABASE_NAMESPACE, "ss", "-Hltn",
                "sport = :" + DATABASE_PORT)).output.contains(DATABASE_ADDRESS)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the database listener on " + DATABASE_ADDRESS + " did not start; see "
                        + STATE_DIR.resolve("listener.log"));
            }
            Thread.sleep(50);
        }
    }

    /**
     * For a database outside this machine's namespaces ({@code --url}): a forwarder in the root
     * namespace from a Unix socket to {@code host:port}. Returns the socket for {@link #listen}.
     */
    public Path forwardToTcp(String host, int port) throws IOException, InterruptedException {
        Path socket = STATE_DIR.resolve("forward.sock");
        Files.deleteIfExists(socket);
        startHelper("forwarder", List.of("socat", "UNIX-LISTEN:" + socket + ",fork,unlink-early",
                "TCP:" + host + ":" + port));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(socket)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the forwarder to " + host + ":" + port + " did not start; see "
                        + STATE_DIR.resolve("forwarder.log"));
            }
            Thread.sleep(20);
        }
        return socket;
    }

    private void startHelper(String name, List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(STATE_DIR.resolve(name + ".log").toFile()).start();
        helpers.add(p);
        // A root-namespace helper outlives a killed run: cleanup finds it by this file.
        Files.writeString(STATE_DIR.resolve(name + ".pid"), Long.toString(p.pid()));
    }

    /** The processes of the database's namespace: the listener and one forked copy per open connection. */
    public List<Long> listenerPids() {
        return pids(DATABASE_NAMESPACE);
    }

    /** The processes of every host namespace: the worker JVMs. */
    public List<Long> hostPids() {
        List<Long> pids = new ArrayList<>();
        for (int i = 1; i <= hosts; i++) {
            pids.addAll(pids(namespace(i)));
        }
        return pids;
    }

    /** Cuts host {@code i}'s link at the bridge: its interface loses carrier, its packets go nowhere. */
    public void cut(int i) {
        checkHost(i);
        ip("-n", DATABASE_NAMESPACE, "link", "set", bridgePort(i), "down");
    }

    /** Gives host {@code i} its link back. */
    public void restore(int i) {
        checkHost(i);
        ip("-n", DATABASE_NAMESPACE, "link", "set", bridgePort(i), "up");
    }

    private void checkHost(int i) {
        if (i < 1 || i > hosts) {
            throw new IllegalArgumentException("host " + i + " is not one of 1.." + hosts);
        }
    }

    /** Stops the helpers it started, then removes every namespace, interface and process of the prefix. */
    @Override
    public void close() {
        for (Process p : helpers) {
            p.destroyForcibly();
        }
        cleanup();
    }

    /**
     * Removes whatever a run left behind, found by name: the processes inside namespaces named
     * {@link #PREFIX}* (SIGKILL: worker JVMs, the listener), the namespaces (their interfaces go
     * with them), interfaces of the prefix still in the root namespace, the root-namespace helpers
     * recorded under {@link #STATE_DIR}, and an embedded server whose data is there. Returns what
     * it removed, one line each.
     */
    public static List<String> cleanup() {
        List<String> removed = new ArrayList<>();
        for (String ns : namespaces()) {
            for (long pid : pids(ns)) {
                if (kill(pid)) {
                    removed.add("process " + pid + " in " + ns);
                }
            }
            ip("netns", "del", ns);
            removed.add("namespace " + ns);
        }
        try {
            for (String line : exec(List.of("ip", "-o", "link", "show")).output.split("\n")) {
                String[] parts = line.split(":\\s+", 3);
                if (parts.length > 1) {
                    String name = parts[1].split("@")[0];
                    if (name.startsWith(PREFIX)) {
                        exec(List.of("ip", "link", "del", name));
                        removed.add("interface " + name);
                    }
                }
            }
            if (Files.isDirectory(STATE_DIR)) {
                try (Stream<Path> files = Files.list(STATE_DIR)) {
                    for (Path pidFile : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
                        long pid = Long.parseLong(Files.readString(pidFile).strip());
                        if (kill(pid)) {
                            removed.add("process " + pid + " (" + pidFile.getFileName() + ")");
                        }
                        Files.delete(pidFile);
                    }
                }
                Files.deleteIfExists(STATE_DIR.resolve("forward.sock"));
                Optional<Long> postmaster = EmbeddedServer.leftoverPostmaster();
                if (postmaster.isPresent()) {
                    EmbeddedServer.stop(postmaster.get());
                    removed.add("embedded PostgreSQL " + postmaster.get());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cleanup of " + PREFIX + "* failed", e);
        }
        return removed;
    }

    private static List<String> namespaces() {
        List<String> names = new ArrayList<>();
        try {
            for (String line : exec(List.of("ip", "netns", "list")).output.split("\n")) {
                String name = line.split(" ")[0].strip();
                if (name.startsWith(PREFIX)) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    private static List<Long> pids(String namespace) {
        List<Long> pids = new ArrayList<>();
        try {
            for (String line : exec(List.of("ip", "netns", "pids", namespace)).output.split("\n")) {
                if (!line.isBlank()) {
                    pids.add(Long.parseLong(line.strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return pids;
        }
        return pids;
    }

    /** SIGKILL, and waits for the process to go; false when it was not running. */
    private static boolean kill(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty()) {
            return false;
        }
        handle.get().destroyForcibly();
        try {
            handle.get().onExit().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // gone or unkillable: reported by the namespace removal if it matters
        }
        return true;
    }

    private static void ip(String... args) {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        try {
            Result r = exec(command);
            if (r.exit != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + r.output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", command) + " could not run", e);
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result exec(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            return new Result(p.waitFor(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }
}
