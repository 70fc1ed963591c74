package dev.skipjack.lab.bench;

import com.sun.management.OperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU a phase's JVM spends inside its timed window (from the clock's start until its last job
 * is done), and how much of that the JIT compiler's threads took: in a fresh JVM on two cores the
 * compiler competes with the job threads and the database, and this says how much of a drain's
 * gap to the ceiling is the warm-up rather than the per-job path. The phase marks the window's
 * start and end ({@link #open}, {@link #close}); {@link FreshJvm} prints the result.
 *
 * <p>The compiler threads' CPU comes from {@code /proc/self/task/<tid>/stat} (Linux; their names
 * start with "C1 CompilerThre" or "C2 CompilerThre"), in clock ticks of 10 ms ({@code USER_HZ}
 * is 100 on every Linux architecture the JDK runs on), so each figure is good to about 20 ms.
 * Each compiler thread counts from the window's start, or from its own start if later; one that
 * ends inside the window (HotSpot retires idle compiler threads) is missed, so the figure is a
 * lower bound. The JVM's own {@code CompilationMXBean} counts wall time, which on a loaded machine
 * includes the time the compiler waited for a core. Elsewhere the JIT figure is -1.
 */
final class PhaseWindow {

    private static final Path TASKS = Path.of("/proc/self/task");
    private static final long NANOS_PER_TICK = 10_000_000L;

    private static volatile long processAtOpen;
    /** Clock ticks of each compiler thread at the window's start, by thread id; null without /proc. */
    private static volatile Map<String, Long> compilerAtOpen;
    private static volatile long processInWindow = -1;
    private static volatile long compilerInWindow = -1;

    private PhaseWindow() {
    }

    /** Marks the start of the timed window; call on the phase's own thread, right before its clock starts. */
    static void open() {
        compilerAtOpen = compilerTicks();
        processAtOpen = processCpuNanos();
        processInWindow = -1;
        compilerInWindow = -1;
    }

    /** Marks the end of the timed window, right after its clock stops. */
    static void close() {
        long process = processCpuNanos();
        Map<String, Long> compiler = compilerTicks();
        processInWindow = process - processAtOpen;
        Map<String, Long> atOpen = compilerAtOpen;
        if (compiler == null || atOpen == null) {
            compilerInWindow = -1;
            return;
        }
        long ticks = 0;
        for (Map.Entry<String, Long> thread : compiler.entrySet()) {
            ticks += thread.getValue() - atOpen.getOrDefault(thread.getKey(), 0L);
        }
        compilerInWindow = ticks * NANOS_PER_TICK;
    }

    /** The whole JVM's CPU in the window, microseconds per job; -1 when no window was marked. */
    static double cpuMicrosPerJob(int jobs) {
        return processInWindow < 0 ? -1 : processInWindow / 1e3 / jobs;
    }

    /** The JIT compiler threads' CPU in the window, microseconds per job; -1 where it cannot be read. */
    static double jitMicrosPerJob(int jobs) {
        return compilerInWindow < 0 ? -1 : compilerInWindow / 1e3 / jobs;
    }

    /** This JVM's CPU so far, every thread's (the JIT compiler's and the collector's too), in nanoseconds. */
    static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The clock ticks each live JIT compiler thread of this JVM has used, by thread id; null without Linux's /proc. */
    static Map<String, Long> compilerTicks() {
        if (!Files.isDirectory(TASKS)) {
            return null;
        }
        Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                long used = compilerTicks(task);
                if (used >= 0) {
                    ticks.put(task.getFileName().toString(), used);
                }
            }
        } catch (IOException e) {
            return null;
        }
        return ticks;
    }

    /** utime + stime of {@code task} when it is a compiler thread, else -1 (also when it just ended). */
    private static long compilerTicks(Path task) throws IOException {
        String stat;
        try {
            stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException ended) {
            return -1;
        }
        // pid (comm) state ppid ...: the name may hold spaces and parentheses, so split at the last ')'.
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String name = stat.substring(open + 1, close);
        if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
            return -1;
        }
        String[] fields = stat.substring(close + 2).split(" ");
        // After the name: state is field 3 of the line, utime 14 and stime 15 (proc(5)).
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
