package dev.skipjack.internal.threads;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for running handlers: a virtual thread per job on Java 21+, platform threads on 17.
 * Skipjack compiles to Java 17, so virtual threads are reached by reflection.
 */
public final class WorkerThreads {

    private WorkerThreads() {
    }

    /**
     * An executor that starts one thread per task (concurrency is bounded by the queues' slots),
     * and whether it made virtual threads: when the JVM has them and {@code virtualAllowed},
     * platform threads otherwise.
     */
    public static JobThreads newJobExecutor(String namePrefix, boolean virtualAllowed) {
        ExecutorService virtual = virtualAllowed ? virtualThreadExecutor(namePrefix) : null;
        return virtual != null ? new JobThreads(virtual, true)
                : new JobThreads(Executors.newCachedThreadPool(daemonFactory(namePrefix)), false);
    }

    /**
     * The job threads' executor and whether its threads are virtual: asked for and available can
     * still come out platform, when the JVM refuses the reflective calls that make them.
     */
    public record JobThreads(ExecutorService executor, boolean virtual) {
    }

    /** A wait that an interrupt can cut short, and what else it may throw. */
    @FunctionalInterface
    public interface Wait<T, X extends Exception> {
        T get() throws InterruptedException, X;
    }

    /**
     * The result of {@code wait}, waited for whatever interrupts the calling thread meanwhile, its
     * interrupt flag set again on return when there was one: for waits that must see their end
     * (claimed jobs that must be tracked, a bulk enqueue's validated chunks).
     */
    public static <T, X extends Exception> T uninterruptibly(Wait<T, X> wait) throws X {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return wait.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static boolean virtualThreadsAvailable() {
        return Runtime.version().feature() >= 21;
    }

    /**
     * Longest a stop waits for each of its best-effort database writes ({@link #runWithin}), and for
     * the maintenance rounds still running before it gives leadership up.
     */
    public static final Duration STOP_WRITE_WAIT = Duration.ofSeconds(2);

    /**
     * Runs {@code task} on a daemon thread of its own and waits at most {@code limit} for it;
     * returns whether it finished in time. For the best-effort database writes of a stop (giving
     * leadership up, removing the node's row): with the database gone or the pool drained, a pool's
     * getConnection waits its whole connection timeout (HikariCP's default is 30 s), and a process
     * stopping, in a JVM shutdown hook or a test context closing, must not wait for that. A task
     * still running when the wait ends goes on in the background and dies with the JVM.
     */
    public static boolean runWithin(String name, Duration limit, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
        return waitOut(limit, nanos -> {
            t.join(Math.max(1, nanos / 1_000_000));
            return !t.isAlive();
        });
    }

    /**
     * Waits at most {@code limit} for {@code executor}, already shut down, to finish its running
     * tasks; returns whether it did. As {@link #runWithin}, a stop called from an interrupted thread
     * still waits its time, and the interrupt is put back afterwards.
     */
    public static boolean awaitTermination(ExecutorService executor, Duration limit) {
        return waitOut(limit, nanos -> executor.awaitTermination(nanos, TimeUnit.NANOSECONDS));
    }

    /** One bounded wait for something to be over: true when it is. */
    private interface BoundedWait {
        boolean awaitNanos(long nanos) throws InterruptedException;
    }

    /**
     * Waits with {@code wait} until it reports done or {@code limit} has passed; returns whether it
     * is done. An interrupt does not cut the wait short: a stop called from an interrupted thread
     * still gives its write, or the rounds it waits for, their time. The interrupt is put back
     * afterwards.
     */
    private static boolean waitOut(Duration limit, BoundedWait wait) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    boolean done = wait.awaitNanos(Math.max(0, left));
                    if (done || left <= 0) {
                        return done;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs {@code task} with this thread's interrupt cleared, and puts it back after: for a stopped
     * run's undo of its own late write, on the maintenance thread the stop interrupted, since a pool
     * refuses a connection at once to an interrupted thread (HikariCP does).
     */
    public static void outsideInterrupt(Runnable task) {
        boolean interrupted = Thread.interrupted();
        try {
            task.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static ThreadFactory daemonFactory(String namePrefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, namePrefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static ExecutorService virtualThreadExecutor(String namePrefix) {
        if (!virtualThreadsAvailable()) {
            return null;
        }
        try {
            // Thread.ofVirtual().name(prefix, 0).factory()
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, namePrefix + "-", 0L);
            ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
            Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
            return (ExecutorService) perTask.invoke(null, factory);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
