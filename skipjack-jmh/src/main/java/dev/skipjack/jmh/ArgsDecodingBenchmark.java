package dev.skipjack.jmh;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Decoding a job's tiny args ({@code {"n": 12345}}, the drain's payload) into its record, as a
 * worker does for every job before the handler runs: {@code mapper.readValue(argsJson, argsType)}
 * on the mapper Skipjack builds by default. Beside it, the same through an {@link ObjectReader}
 * made once per type, to show what caching the reader per kind would save.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ArgsDecodingBenchmark {

    /** The drain's args type. */
    public record Args(int n) {
    }

    private static final String JSON = "{\"n\": 12345}";

    private ObjectMapper mapper;
    private ObjectReader reader;

    @Setup
    public void setUp() {
        // The default of Skipjack.Builder: JsonMapper.builder().findAndAddModules().build().
        mapper = JsonMapper.builder().findAndAddModules().build();
        reader = mapper.readerFor(Args.class);
    }

    @Benchmark
    public Args readValue() throws Exception {
        return mapper.readValue(JSON, Args.class);
    }

    @Benchmark
    public Args cachedReader() throws Exception {
        return reader.readValue(JSON);
    }

    /** Enqueue's validation round trip: serialize, read back as the type, serialize again. */
    @Benchmark
    public String enqueueValidation() throws Exception {
        String json = mapper.writeValueAsString(new Args(12345));
        return mapper.writeValueAsString(mapper.readValue(json, Args.class));
    }
}
