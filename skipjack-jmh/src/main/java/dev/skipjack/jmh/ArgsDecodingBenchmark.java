package dev.skipjack.jmh;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.skipjack.internal.enqueue.ArgsEncoder;
import dev.skipjack.internal.enqueue.StoredText;
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
 * made once per type, to show what caching the reader per kind saves; and enqueue's encoding of
 * args, now and before {@link ArgsEncoder}.
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
    private ArgsEncoder encoder;
    private JavaType argsType;

    @Setup
    public void setUp() {
        // The default of Skipjack.Builder: JsonMapper.builder().findAndAddModules().build().
        mapper = JsonMapper.builder().findAndAddModules().build();
        reader = mapper.readerFor(Args.class);
        encoder = new ArgsEncoder(mapper);
        argsType = mapper.constructType(Args.class);
    }

    @Benchmark
    public Args readValue() throws Exception {
        return mapper.readValue(JSON, Args.class);
    }

    @Benchmark
    public Args cachedReader() throws Exception {
        return reader.readValue(JSON);
    }

    /**
     * What enqueue does now (ArgsEncoder, StoredText): serialize once within the size limit, scan
     * the text for what no backend stores; an instance of the kind's own type is read back once per type.
     */
    @Benchmark
    public String enqueueEncode() throws Exception {
        Args args = new Args(12345);
        String json = encoder.write(args, 256 * 1024);
        if (StoredText.refusal(json) != null) {
            throw new IllegalStateException(json);
        }
        encoder.checkReadsBack(args, json, argsType);
        return json;
    }

    /** Enqueue's validation before ArgsEncoder, kept for comparison: serialize, read back as the type, serialize again. */
    @Benchmark
    public String enqueueValidationBefore() throws Exception {
        String json = mapper.writeValueAsString(new Args(12345));
        return mapper.writeValueAsString(mapper.readValue(json, Args.class));
    }
}
