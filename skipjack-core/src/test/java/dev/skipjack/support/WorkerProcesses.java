package dev.skipjack.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts {@link WorkerProcess} JVMs with this JVM's class path and kills them at the end. */
public final class WorkerProcesses implements AutoCloseable {

    private final List<Process> processes = new ArrayList<>();
    private final Path logDir;
    private java.util.Map<String, String> environment = java.util.Map.of();
    private volatile long lastWorkerClockMillis;

    public WorkerProcesses(String name) throws IOException {
        this.logDir = Path.of("target", "worker-logs", name);
        Files.createDirectories(logDir);
    }

    /** Starts one worker JVM and waits until it reports READY. */
    public Process start(String jdbcUrl, String schema, String mode, String workerId, int concurrency, int batch,
                         long leaseMillis, long handlerMillis) throws IOException {
        return start(jdbcUrl, schema, mode, workerId, concurrency, batch, leaseMillis, handlerMillis, 500);
    }

    /** As above; {@code rescueMillis} 0 keeps Skipjack's default poll and rescue intervals. */
    public Process start(String jdbcUrl, String schema, String mode, String workerId, int concurrency, int batch,
                         long leaseMillis, long handlerMillis, long rescueMillis) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), WorkerProcess.class.getName(),
                jdbcUrl, schema, mode, workerId, Integer.toString(concurrency), Integer.toString(batch),
                Long.toString(leaseMillis), Long.toString(handlerMillis), Long.toString(rescueMillis)));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(environment);
        pb.redirectError(logDir.resolve(workerId + ".err").toFile());
        Process p = pb.start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("READY")) {
            throw new IOException("worker " + workerId + " did not start; see " + logDir.resolve(workerId + ".err"));
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
     * Adds these variables to the environment of worker JVMs started from now on, e.g.
     * libfaketime's {@code LD_PRELOAD} and {@code FAKETIME} (not the {@code faketime} wrapper,
     * which forks: killing it would leave the JVM running).
     */
    public void environment(java.util.Map<String, String> variables) {
        environment = java.util.Map.copyOf(variables);
    }

    /** The wall clock the last started worker JVM reported when it became ready. */
    public long lastWorkerClockMillis() {
        return lastWorkerClockMillis;
    }

    /** Starts a JVM running {@code main} with these arguments; it must print READY once it runs. */
    public Process startMain(Class<?> main, String workerId, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(logDir.resolve(workerId + ".err").toFile());
        pb.redirectOutput(logDir.resolve(workerId + ".out").toFile());
        Process p = pb.start();
        processes.add(p);
        return p;
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
