package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.LogCapture;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Handlers run on virtual threads on Java 21 and later, except on SQLite, whose driver waits for
 * the write lock in native code that pins a virtual thread's carrier; on platform threads
 * otherwise. The start log names the kind they actually run on (it once named the kind asked for,
 * also when the JVM refused to make virtual threads and the worker fell back to platform ones).
 */
class JobThreadsTest extends EveryBackendTest {

    record Args(int n) {
    }

    @Test
    void handlersRunOnTheThreadsTheStartLogNames() throws Exception {
        CompletableFuture<Boolean> ranOnVirtual = new CompletableFuture<>();
        Skipjack worker = client(builder().queue("default", 1)
                .handler(JobKind.of("where", Args.class), job -> {
                    ranOnVirtual.complete(isVirtual(Thread.currentThread()));
                    return Outcome.complete();
                }));
        worker.enqueue("where", new Args(1));
        try (LogCapture log = new LogCapture()) {
            worker.start();
            boolean virtual = ranOnVirtual.get(30, TimeUnit.SECONDS);
            assertThat(virtual).as("handler on a virtual thread, Java %s on %s", Runtime.version().feature(), backend)
                    .isEqualTo(Runtime.version().feature() >= 21 && backend != TestBackend.SQLITE);
            assertThat(log.linesContaining("Skipjack worker " + worker.workerId() + " started"))
                    .singleElement().asString().endsWith(virtual ? "virtual threads" : "platform threads");
        }
        worker.stop(Duration.ofSeconds(5));
    }

    /** Thread.isVirtual(), which Java 17 (this code's target) does not have: no virtual threads there. */
    private static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (NoSuchMethodException e) {
            return false;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
