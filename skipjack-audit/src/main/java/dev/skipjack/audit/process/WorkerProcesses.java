package dev.skipjack.audit.process;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link AuditedWorker} JVMs (and the {@link UniqueEnqueuer} JVMs of the unique-jobs test)
 * with this JVM's class path and kills them at the end: for the fault tests and for the lab's chaos
 * command. Each process's stderr goes to {@code <logDir>/<id>.err}.
 */
public final class WorkerProcesses implements AutoCloseable {

    /** The fault tests' worker JVMs: small and quick to start, as many run on one machine. */
    private static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    private final List<Process> processes = new ArrayList<>();
    private final Path logDir;
    private final List<String> jvmOptions;
    private Map<String, String> environment = Map.of();
    private volatile long lastWorkerClockMillis;

    /** The fault tests' launcher: logs under {@code target/worker-logs/<name>}. */
    public WorkerProcesses(String name) throws IOException {
        this(Path.of("target", "worker-logs", name), TEST_JVM_OPTIONS);
    }

    /** Workers with these JVM options, logging to {@code logDir}. */
    public WorkerProcesses(Path logDir, List<String> jvmOptions) throws IOException {
        this.logDir = logDir;
        this.jvmOptions = List.copyOf(jvmOptions);
        Files.createDirectories(logDir);
    }

    /** Starts one fault-test worker JVM (rescue every 500 ms) and waits until it reports READY. */
    public Process start(String jdbcUrl, String schema, String mode, String workerId, int concurrency, int batch,
                         long leaseMillis, long handlerMillis) throws IOException {
        return start(jdbcUrl, schema, mode, workerId, concurrency, batch, leaseMillis, handlerMillis, 500);
    }

    /** As above; {@code rescueMillis} 0 keeps Skipjack's default poll and rescue intervals. */
    public Process start(String jdbcUrl, String schema, String mode, String workerId, int concurrency, int batch,
                         long leaseMillis, long handlerMillis, long rescueMillis) throws IOException {
        return start(WorkerOptions.of(jdbcUrl, schema, mode, workerId).concurrency(concurrency).batch(batch)
                .leaseMillis(leaseMillis).pauseMillis(Math.toIntExact(handlerMillis)).rescueMillis(rescueMillis));
    }

    /** Starts one worker JVM and waits until it reports READY. */
    public Process start(WorkerOptions options) throws IOException {
        return start(options, List.of());
    }

    /**
     * Starts one worker JVM under {@code wrapper}, a command that execs the rest of its command
     * line (e.g. {@code ip netns exec <namespace>}: the JVM then runs on that namespace's network,
     * as on another host), and waits until it reports READY. The wrapper must exec, not fork, so
     * that killing the process kills the JVM.
     */
    public Process start(WorkerOptions options, List<String> wrapper) throws IOException {
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(command(AuditedWorker.class, options.toArgs()));
        return startAndAwaitReady(options.workerId, command);
    }

    /**
     * Starts one {@link UniqueEnqueuer} JVM and waits until it reports READY: connected and waiting
     * for the start signal. It exits by itself when its calls are done (0 when all are recorded).
     */
    public Process startUniqueEnqueuer(UniqueEnqueuer.Options options) throws IOException {
        return startAndAwaitReady(options.process(), command(UniqueEnqueuer.class, options.toArgs()));
    }

    /** Where the process named {@code id} writes its stderr. */
    public Path errorLog(String id) {
        return logDir.resolve(id + ".err");
    }

    private Process startAndAwaitReady(String id, List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(environment);
        pb.redirectError(errorLog(id).toFile());
        Process p = pb.start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("READY")) {
            throw new IOException("process " + id + " did not start; see " + errorLog(id));
        }
        String[] ready = line.split(" ");
        if (ready.length > 2) {
            lastWorkerClockMillis = Long.parseLong(ready[2]);
        }
        // Keep draining stdout so the child never blocks on a full pipe.
        Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) {
                    // discard
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    /**
     * Starts a worker of mode two-phase without waiting for READY: it may halt at its crash point
     * before it prints it. Its stdout goes to {@code <logDir>/<workerId>.out}.
     */
    public Process startTwoPhase(String jdbcUrl, String schema, String workerId, String crashPoint, long leaseMillis)
            throws IOException {
        WorkerOptions options = WorkerOptions.of(jdbcUrl, schema, "two-phase", workerId).concurrency(1).batch(1)
                .leaseMillis(leaseMillis).rescueMillis(200).crashPoint(crashPoint);
        ProcessBuilder pb = new ProcessBuilder(command(AuditedWorker.class, options.toArgs()));
        pb.redirectError(errorLog(workerId).toFile());
        pb.redirectOutput(logDir.resolve(workerId + ".out").toFile());
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    private List<String> command(Class<?> main, List<String> args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        return command;
    }

    /**
     * Adds these variables to the environment of worker JVMs started from now on, e.g.
     * libfaketime's {@code LD_PRELOAD} and {@code FAKETIME} (not the {@code faketime} wrapper,
     * which forks: killing it would leave the JVM running), or {@link AuditedWorker#PASSWORD_ENV}.
     */
    public void environment(Map<String, String> variables) {
        environment = Map.copyOf(variables);
    }

    /** The wall clock the last started worker JVM reported when it became ready. */
    public long lastWorkerClockMillis() {
        return lastWorkerClockMillis;
    }

    /** SIGKILL: the JVM gets no chance to clean up, like a crashed host. */
    public static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: the JVM runs its shutdown hooks, so the worker stops gracefully. */
    public static void terminate(Process p) throws InterruptedException {
        p.destroy();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    public File logDir() {
        return logDir.toFile();
    }

    @Override
    public void close() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
