package dev.skipjack.lab.bench;

import dev.skipjack.JobKind;
import dev.skipjack.Skipjack;

import java.util.Arrays;
import javax.sql.DataSource;

/**
 * Single-job enqueue latency: {@code enqueue()} of one tiny job, each call its own committed
 * transaction, back to back, from a producer-only client built for the run. The first call is
 * reported apart: in a fresh JVM it carries the first-use costs (Jackson's serializer and the
 * read-back of the args type, Skipjack's statements, the driver's first prepare); in a warm one
 * (as inside {@code bench}) it is the client's own first call. The others give p50/p99/max.
 */
public final class EnqueueLatency {

    /** Milliseconds. */
    public record Result(int samples, double firstCallMs, double p50Ms, double p99Ms, double maxMs) {

        /** The RESULT line's fields after {@code workload=enqueue_latency}. */
        public String fields() {
            return String.format(java.util.Locale.ROOT, "samples=%d first_call_ms=%.2f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f",
                    samples, firstCallMs, p50Ms, p99Ms, maxMs);
        }
    }

    private final DataSource dataSource;
    private final String schema;

    /** {@code schema}: the bench schema (null for the client's default). */
    public EnqueueLatency(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    /** Enqueues {@code samples} + 1 jobs one at a time and leaves them in the table (callers empty it). */
    public Result run(int samples) {
        Skipjack.Builder builder = Skipjack.builder(dataSource);
        if (schema != null) {
            builder.schema(schema);
        }
        Skipjack producer = builder.kind(JobKind.of(SkipjackDrain.KIND, SkipjackDrain.Args.class)).build();
        long start = System.nanoTime();
        producer.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(-1));
        double first = (System.nanoTime() - start) / 1e6;
        double[] millis = new double[samples];
        for (int i = 0; i < samples; i++) {
            long t = System.nanoTime();
            producer.enqueue(SkipjackDrain.KIND, new SkipjackDrain.Args(i));
            millis[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(millis);
        return new Result(samples, first, IdleLatency.percentile(millis, 0.50), IdleLatency.percentile(millis, 0.99),
                millis[samples - 1]);
    }
}
