package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class SmokeTest extends EveryBackendTest {

    record Ping(int n) {
    }

    @Test
    void runsEnqueuedJobs() {
        AtomicInteger ran = new AtomicInteger();
        Skipjack s = client(builder().queue("default", 8)
                .handler(JobKind.of("ping", Ping.class), job -> {
                    ran.incrementAndGet();
                    return Outcome.complete();
                }));
        List<JobRequest> reqs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            reqs.add(JobRequest.of("ping", new Ping(i)));
        }
        s.enqueueAll(reqs);
        s.start();
        await("all completed", Duration.ofSeconds(30), () -> s.countByState().get(JobState.COMPLETED) == 1000);
        assertThat(ran.get()).isEqualTo(1000);
    }
}
