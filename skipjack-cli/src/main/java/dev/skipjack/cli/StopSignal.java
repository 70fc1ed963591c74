package dev.skipjack.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How a long-running command ({@code worker}, {@code dashboard}) waits to be stopped: Ctrl-C (a
 * shutdown hook, registered while this is open) or {@code --stop-after}. Close it after the
 * command's own cleanup, so the hook is gone when the command returns normally.
 */
final class StopSignal implements AutoCloseable {

    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread hook;

    StopSignal(String threadName) {
        hook = new Thread(stop::countDown, threadName);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Blocks until Ctrl-C, or until {@code stopAfter} has passed when it is not null. */
    void await(Duration stopAfter) throws InterruptedException {
        if (stopAfter != null) {
            stop.await(stopAfter.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            stop.await();
        }
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already stopping because of the signal that stopped us
        }
    }
}
