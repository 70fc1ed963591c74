package dev.skipjack.internal.worker;

import dev.skipjack.internal.claim.ClaimedJob;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The running job in the SLF4J MDC while its handler runs, so every line the handler logs says
 * which job wrote it: {@value #JOB_ID}, {@value #KIND}, {@value #QUEUE} and {@value #ATTEMPT}.
 * Values the thread had before are put back afterwards (a handler run on a caller's thread, a
 * logging context set by a framework).
 */
final class JobMdc implements AutoCloseable {

    static final String JOB_ID = "skipjack.jobId";
    static final String KIND = "skipjack.kind";
    static final String QUEUE = "skipjack.queue";
    static final String ATTEMPT = "skipjack.attempt";
    private static final String[] KEYS = {JOB_ID, KIND, QUEUE, ATTEMPT};

    private final String[] before = new String[KEYS.length];

    /** No MDC without an SLF4J provider that keeps one: nothing to put, read back or restore then. */
    private static final JobMdc NOTHING_KEPT = new JobMdc();

    private JobMdc() {
    }

    private JobMdc(ClaimedJob job) {
        for (int i = 0; i < KEYS.length; i++) {
            before[i] = MDC.get(KEYS[i]);
        }
        MDC.put(JOB_ID, Long.toString(job.id()));
        MDC.put(KIND, job.kind());
        MDC.put(QUEUE, job.queue());
        MDC.put(ATTEMPT, Integer.toString(job.attempt()));
    }

    static JobMdc put(ClaimedJob job) {
        return MDC.getMDCAdapter() instanceof NOPMDCAdapter ? NOTHING_KEPT : new JobMdc(job);
    }

    @Override
    public void close() {
        if (this == NOTHING_KEPT) {
            return;
        }
        for (int i = 0; i < KEYS.length; i++) {
            if (before[i] == null) {
                MDC.remove(KEYS[i]);
            } else {
                MDC.put(KEYS[i], before[i]);
            }
        }
    }
}
