package dev.skipjack.lab.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The memory workload's readings and its cost per running job, from what the worker JVM prints. */
class MemoryWorkloadTest {

    @Test
    void readsTheResidentSetFromProcStatus() {
        assertThat(MemoryWorker.vmRssKb(List.of("Name:\tjava", "VmPeak:\t 9000 kB", "VmRSS:\t   75088 kB", "Threads:\t23")))
                .isEqualTo(75_088);
        assertThat(MemoryWorker.vmRssKb(List.of("Name:\tjava"))).isEqualTo(-1);
    }

    @Test
    void parsesTheWorkersReading() {
        assertThat(MemoryWorkload.parse("MEASURED 64 9100000 92300 86"))
                .isEqualTo(new MemoryWorkload.Reading(64, 9_100_000, 92_300, 86));
    }

    @Test
    void costPerRunningJobIsTheSlopeOverTheReadingsWithJobsRunning() {
        // 10 kB of heap, 160 kB of RSS and one thread per running job; the idle RSS is off the line
        // (start-up's pages), and must not bend the slope.
        List<MemoryWorkload.Reading> readings = List.of(
                new MemoryWorkload.Reading(0, 8_000_000, 90_000, 23),
                new MemoryWorkload.Reading(8, 8_080_000, 71_280, 31),
                new MemoryWorkload.Reading(64, 8_640_000, 80_240, 87),
                new MemoryWorkload.Reading(256, 10_560_000, 110_960, 279));

        assertThat(MemoryWorkload.slope(new double[] {0, 8, 64, 256}, new double[] {0, 80, 640, 2560})).isCloseTo(10, within(1e-9));
        assertThat(MemoryWorkload.resultLine(readings)).isEqualTo("RESULT workload=memory concurrency=256 jvm_flags=none"
                + " idle_heap_mb=8.0 idle_rss_mb=90.0 idle_threads=23 k8_heap_mb=8.1 k8_rss_mb=71.3 k64_heap_mb=8.6"
                + " k64_rss_mb=80.2 k256_heap_mb=10.6 k256_rss_mb=111.0 per_running_job_kb=10.0"
                + " per_running_job_rss_kb=160.0 per_running_job_threads=1.00");
    }
}
