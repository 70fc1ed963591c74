package dev.skipjack.internal.enqueue;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A bulk enqueue whose validation thread cannot be started (a process at its thread limit) is
 * validated completely on the caller's thread, chunk by chunk in the same order, instead of
 * failing. No database here: what is checked is which thread validates what, and when.
 */
class ValidatedChunksTest {

    private static final int MAX_CHUNK_ROWS = 1_000;

    /** A thread the JVM refuses to start, as it does at a process or container thread limit. */
    private static final ThreadFactory NO_THREADS = runnable -> new Thread(runnable) {
        @Override
        public synchronized void start() {
            throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
        }
    };

    /** One run of the validation: on which thread, of which requests, giving which chunk. */
    private record Validated(Thread thread, List<Integer> requests, InsertBatch chunk) {
    }

    private final List<Integer> requests = IntStream.range(0, 3_300).boxed().toList();
    private final List<Validated> validated = new CopyOnWriteArrayList<>();

    private final Function<List<Integer>, InsertBatch> recordingValidation = chunk -> {
        InsertBatch batch = new InsertBatch(chunk.size());
        validated.add(new Validated(Thread.currentThread(), List.copyOf(chunk), batch));
        return batch;
    };

    /** The requests of the chunk validation gave as {@code chunk}. */
    private List<Integer> requestsOf(InsertBatch chunk) {
        return validated.stream().filter(v -> v.chunk() == chunk).findFirst().orElseThrow().requests();
    }

    /** Takes every chunk, in order, as the enqueue does, and says which requests each held. */
    private List<List<Integer>> takeAll(ValidatedChunks chunks) {
        List<List<Integer>> taken = new ArrayList<>();
        for (InsertBatch chunk = chunks.next(); chunk != null; chunk = chunks.next()) {
            taken.add(requestsOf(chunk));
        }
        return taken;
    }

    @Test
    void withoutAValidationThreadTheCallerValidatesEveryRequestOnceInTheSameChunks() {
        List<List<Integer>> withAThread;
        try (ValidatedChunks chunks = ValidatedChunks.start(requests, MAX_CHUNK_ROWS, recordingValidation)) {
            withAThread = takeAll(chunks);
        }
        assertThat(validated.stream().filter(v -> v.requests().get(0) >= ValidatedChunks.FIRST_CHUNK_ROWS).map(Validated::thread))
                .as("with a thread, the chunks after the first are validated on it")
                .isNotEmpty().doesNotContain(Thread.currentThread());
        validated.clear();

        List<List<Integer>> here;
        try (ValidatedChunks chunks = ValidatedChunks.start(requests, MAX_CHUNK_ROWS, recordingValidation, NO_THREADS)) {
            here = takeAll(chunks);
        }

        assertThat(here).as("the same chunks as with a thread").isEqualTo(withAThread).hasSizeGreaterThan(2);
        assertThat(validated).extracting(Validated::thread).containsOnly(Thread.currentThread());
        assertThat(here.stream().flatMap(List::stream).toList())
                .as("every request handed out once, in request order").isEqualTo(requests);
        assertThat(validated.stream().flatMap(v -> v.requests().stream()).toList())
                .as("every request validated once").isEqualTo(requests);
    }

    @Test
    void withoutAValidationThreadEachChunkIsValidatedOnlyWhenAskedFor() {
        try (ValidatedChunks chunks = ValidatedChunks.start(requests, MAX_CHUNK_ROWS, recordingValidation, NO_THREADS)) {
            assertThat(validated).as("the first chunk, before start returns").hasSize(1);
            chunks.next();
            assertThat(validated).as("nothing validated ahead without a second thread").hasSize(1);
            chunks.next();
            assertThat(validated).hasSize(2);
        }
        assertThat(validated).as("closing validates nothing more").hasSize(2);
    }

    @Test
    void withoutAValidationThreadABadRequestFailsWhenItsChunkIsAskedForAndNothingAfterItIsValidated() {
        int bad = 2_000;
        Function<List<Integer>, InsertBatch> rejecting = chunk -> {
            InsertBatch batch = recordingValidation.apply(chunk);
            if (chunk.contains(bad)) {
                throw new IllegalArgumentException("request " + bad + " is bad");
            }
            return batch;
        };
        List<List<Integer>> before = new ArrayList<>();
        try (ValidatedChunks chunks = ValidatedChunks.start(requests, MAX_CHUNK_ROWS, rejecting, NO_THREADS)) {
            assertThatThrownBy(() -> {
                for (InsertBatch chunk = chunks.next(); chunk != null; chunk = chunks.next()) {
                    before.add(requestsOf(chunk));
                }
            }).isInstanceOf(IllegalArgumentException.class).hasMessage("request " + bad + " is bad");
        }

        List<Integer> last = validated.get(validated.size() - 1).requests();
        assertThat(last).as("validation stopped at the bad request's chunk").contains(bad);
        assertThat(before.stream().flatMap(List::stream).toList())
                .as("the requests before the bad one's chunk were handed out, in order")
                .isEqualTo(requests.subList(0, requests.indexOf(last.get(0))));
    }

    @Test
    void withoutAValidationThreadNothingIsHandedOutOrValidatedAfterAFailureOrAfterClose() {
        Function<List<Integer>, InsertBatch> rejectingTheSecondChunk = chunk -> {
            InsertBatch batch = recordingValidation.apply(chunk);
            if (validated.size() == 2) {
                throw new IllegalArgumentException("the second chunk is bad");
            }
            return batch;
        };
        try (ValidatedChunks chunks = ValidatedChunks.start(requests, MAX_CHUNK_ROWS, rejectingTheSecondChunk, NO_THREADS)) {
            assertThat(chunks.next()).isNotNull();
            assertThatThrownBy(chunks::next).hasMessage("the second chunk is bad");
            assertThat(chunks.next()).as("after a failed chunk").isNull();
        }
        assertThat(validated).as("no chunk after the bad one validated").hasSize(2);

        validated.clear();
        ValidatedChunks closed = ValidatedChunks.start(requests, MAX_CHUNK_ROWS, recordingValidation, NO_THREADS);
        closed.close();
        assertThat(closed.next()).as("after close, not even the first chunk").isNull();
        assertThat(validated).as("only the first chunk, validated by start").hasSize(1);
    }

    @Test
    void withoutAValidationThreadABadRequestInTheFirstChunkFailsTheStart() {
        Function<List<Integer>, InsertBatch> rejectingTheFirstChunk = chunk -> {
            recordingValidation.apply(chunk);
            throw new IllegalArgumentException("request 0 is bad");
        };
        assertThatThrownBy(() -> ValidatedChunks.start(requests, MAX_CHUNK_ROWS, rejectingTheFirstChunk, NO_THREADS))
                .hasMessage("request 0 is bad");
        assertThat(validated).as("nothing after the first chunk validated").hasSize(1);
    }
}
