package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * While a handler runs, the SLF4J MDC names its job (id, kind, queue, attempt), so every line the
 * handler logs can be traced to the job; nothing of it is left on the thread afterwards.
 */
class JobLoggingContextTest extends EveryBackendTest {

    record Args(int n) {
    }

    static final JobKind<Args> WORK = JobKind.of("work", Args.class);

    @org.junit.jupiter.api.BeforeAll
    static void keepTheMdc() {
        org.slf4j.BasicMdcForTests.install();
    }

    @Test
    void aHandlerLogsWithItsJobInTheMdcInBothModes() {
        Map<Long, Map<String, String>> seen = new ConcurrentHashMap<>();
        JobKind<Args> tx = JobKind.of("tx-work", Args.class);
        Skipjack s = client(builder().queue("default", 1).queue("mail", 1)
                .handler(WORK, job -> {
                    seen.put(job.id(), Map.copyOf(MDC.getCopyOfContextMap()));
                    if (job.args().n() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return Outcome.complete();
                })
                .transactionalHandler(tx, (job, c) -> {
                    seen.put(job.id(), Map.copyOf(MDC.getCopyOfContextMap()));
                    return Outcome.complete();
                }));
        s.start();
        long failing = s.enqueue(WORK, new Args(1), EnqueueOptions.defaults().withMaxAttempts(1));
        long mail = s.enqueue(WORK, new Args(2), EnqueueOptions.defaults().withQueue("mail"));
        long transactional = s.enqueue(tx, new Args(3));
        awaitState(s, failing, JobState.DISCARDED, Duration.ofSeconds(20));
        awaitState(s, mail, JobState.COMPLETED, Duration.ofSeconds(20));
        awaitState(s, transactional, JobState.COMPLETED, Duration.ofSeconds(20));

        assertThat(seen.get(failing)).containsEntry("skipjack.jobId", Long.toString(failing))
                .containsEntry("skipjack.kind", "work").containsEntry("skipjack.queue", "default")
                .containsEntry("skipjack.attempt", "1");
        assertThat(seen.get(mail)).containsEntry("skipjack.jobId", Long.toString(mail))
                .containsEntry("skipjack.queue", "mail");
        assertThat(seen.get(transactional)).containsEntry("skipjack.jobId", Long.toString(transactional))
                .containsEntry("skipjack.kind", "tx-work");
        // The job threads are left clean: a later job on the same thread sees only its own.
        assertThat(seen.values()).allSatisfy(m -> assertThat(m).containsOnlyKeys(
                "skipjack.jobId", "skipjack.kind", "skipjack.queue", "skipjack.attempt"));
    }
}
