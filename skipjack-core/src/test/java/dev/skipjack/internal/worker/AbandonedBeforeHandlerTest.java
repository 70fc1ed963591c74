package dev.skipjack.internal.worker;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.internal.observe.ListenerFanOut;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.internal.claim.ClaimedJob;
import dev.skipjack.internal.kind.ExecutionMode;
import dev.skipjack.internal.kind.RegisteredKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease-mode execution the lease watchdog abandons after the dispatcher checked it and before its
 * job thread is bound must not run its handler: the watchdog's interrupt found no thread, and the
 * job may already be rescued and running elsewhere. Seen in NetworkFaultTest on MariaDB under load:
 * a claim whose response was held up by the partition returned after its lease had run out, the
 * watchdog abandoned its four jobs while their job threads were still reading the args, and all
 * four handlers then ran to the end (their audit rows counted as executions behind the partition).
 * The watchdog firing is simulated exactly where it happened: during args deserialization.
 */
class AbandonedBeforeHandlerTest {

    /** Runs while the job thread reads the args: between the dispatcher's check and bindThread. */
    static volatile Runnable duringArgs = () -> { };

    static final class Args {
        @JsonCreator
        Args(@JsonProperty("n") int n) {
            duringArgs.run();
        }
    }

    private final ObjectMapper mapper = new ObjectMapper();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger handlerRuns = new AtomicInteger();

    @AfterEach
    void stop() {
        timers.shutdownNow();
        duringArgs = () -> { };
    }

    @Test
    void handlerOfAnExecutionAbandonedBeforeItsThreadWasBoundDoesNotRun() {
        Execution execution = new Execution("default", 1, 1, false, System.nanoTime() + 60_000_000_000L);
        // What LeaseHeartbeat.abandon does: settle, then interrupt the bound thread (none yet).
        duringArgs = () -> {
            assertThat(execution.settle()).isTrue();
            execution.interrupt();
        };
        executor().execute(claimed(1), execution, null);
        assertThat(handlerRuns).as("handler runs of an abandoned execution").hasValue(0);
    }

    @Test
    void handlerOfALiveExecutionRuns() {
        Execution execution = new Execution("default", 2, 1, false, System.nanoTime() + 60_000_000_000L);
        executor().execute(claimed(2), execution, null);
        assertThat(handlerRuns).as("the same path without the abandonment runs the handler").hasValue(1);
        assertThat(execution.isSettled()).isFalse();
    }

    private JobExecutor executor() {
        RegisteredKind kind = new RegisteredKind("k", mapper.constructType(Args.class), KindOptions.defaults(),
                new ExecutionMode.Lease(job -> {
                    handlerRuns.incrementAndGet();
                    return Outcome.complete();
                }));
        // The completions are not used by execute(): runLeased hands them its result.
        return new JobExecutor(Map.of("k", kind), mapper, new OutcomeTranslator(mapper), null, timers, "w1", null, null,
                ListenerFanOut.NONE, dev.skipjack.internal.observe.InterceptorChain.NONE);
    }

    private static ClaimedJob claimed(long id) {
        return new ClaimedJob(id, "default", "k", "{\"n\": 1}", 0, 1, 3, Instant.now(), 0);
    }
}
