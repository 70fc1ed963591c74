package dev.skipjack.lab.bench;

import com.sun.management.OperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

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
 * The JVM's own {@code CompilationMXBean} counts wall time, which on a loaded machine includes the
 * time the compiler waited for a core. Elsewhere the JIT figure is -1.
 */
final class PhaseWindow {

    private static final Path TASKS = Path.of("/proc/self/task");
    private static final long NANOS_PER_TICK = 10_000_000L;

    private static volatile long processAtOpen;
    private static volatile long compilerAtOpen;
    private static volatile long processInWindow = -1;
    private static volatile long compilerInWindow = -1;

    private PhaseWindow() {
    }

    /** Marks the start of the timed window; call on the phase's own thread, right before its clock starts. */
    static void open() {
        compilerAtOpen = compilerCpuNanos();
        processAtOpen = processCpuNanos();
        processInWindow = -1;
        compilerInWindow = -1;
    }

    /** Marks the end of the timed window, right after its clock stops. */
    static void close() {
        long process = processCpuNanos();
        long compiler = compilerCpuNanos();
        processInWindow = process - processAtOpen;
        compilerInWindow = compiler < 0 || compilerAtOpen < 0 ? -1 : compiler - compilerAtOpen;
    }

    /** The whole JVM's CPU in the window, microseconds per job; -1 when no window was marked. */
    static double cpuMicrosPerJob(int jobs) {
        return processInWindow < 0 ? -1 : processInWindow / 1e3 / jobs;
    }

    /** The JIT compiler threads' CPU in the window, microseconds per job; -1 where it cannot be read. */
    static double jitMicrosPerJob(int jobs) {
        return compilerInWindow < 0 ? -1 : compilerInWindow / 1e3 / jobs;
    }

    static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The CPU every live JIT compiler thread of this JVM has used, or -1 without Linux's /proc. */
    static long compilerCpuNanos() {
        if (!Files.isDirectory(TASKS)) {
            return -1;
        }
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                ticks += compilerTicks(task);
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * NANOS_PER_TICK;
    }

    /** utime + stime of {@code task} when it is a compiler thread, else 0 (also when it just ended). */
    private static long compilerTicks(Path task) throws IOException {
        String stat;
        try {
            stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException ended) {
            return 0;
        }
        // pid (comm) state ppid ...: the name may hold spaces and parentheses, so split at the last ')'.
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String name = stat.substring(open + 1, close);
        if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
            return 0;
        }
        String[] fields = stat.substring(close + 2).split(" ");
        // After the name: state is field 3 of the line, utime 14 and stime 15 (proc(5)).
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
