package dev.skipjack.internal.enqueue;

import dev.skipjack.SkipjackException;
import dev.skipjack.internal.threads.WorkerThreads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * A bulk enqueue's requests validated a chunk ahead of their inserts. Validating every request
 * (serializing its args, checking them, reading them back) before the first insert made a bulk
 * enqueue take the sum of the two; the database inserting one chunk and the client validating
 * the next can use a core each, so here the calling thread validates the first chunk while a
 * thread of this call's own validates the rest, and the caller inserts each chunk as soon as it
 * is ready: the call takes about the first chunk's validation plus the inserts.
 *
 * <p>Validation stays complete and still precedes every row's insert: a chunk reaches the caller
 * only validated, and a request found bad fails the call when its chunk is asked for, before that
 * chunk is inserted; the caller's transaction then rolls back the chunks before it, so nothing of
 * the call is kept. Only validation runs on the other thread (the args' serializers, a kind
 * limit's partition function: code that reads the caller's thread-locals sees none there for the
 * requests after the first chunk); every statement stays on the caller's thread and connection,
 * and no validation runs after the call has returned ({@link #close}).
 */
public final class ValidatedChunks implements AutoCloseable {

    /**
     * Rows of the first chunk. Small, so the database starts inserting soon: in a fresh JVM the
     * first few thousand requests are validated by the interpreter, 5,000 of them took as long as
     * inserting them. Each later chunk doubles, as validation speeds up, to the statement's limit.
     */
    static final int FIRST_CHUNK_ROWS = 256;

    private static final Object END = new Object();

    private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>();
    private final Thread validator;
    private InsertBatch first;
    private volatile boolean closed;
    private boolean ended;

    private <R> ValidatedChunks(List<R> requests, int maxChunkRows, Function<List<R>, InsertBatch> validate) {
        // A copy: both threads read the requests, and the caller's list may not bear that (a lazy one).
        List<R> copy = new ArrayList<>(requests);
        int firstRows = Math.min(FIRST_CHUNK_ROWS, maxChunkRows);
        validator = new Thread(() -> validateRest(copy, firstRows, maxChunkRows, validate), "skipjack-enqueue-validation");
        validator.setDaemon(true);
        validator.start();
        try {
            first = validate.apply(copy.subList(0, Math.min(copy.size(), firstRows)));
        } catch (Throwable t) {
            close();
            throw t;
        }
    }

    /**
     * Starts validating {@code requests} in chunks: the first, of {@link #FIRST_CHUNK_ROWS}, on the
     * calling thread before this returns (its bad request throws here, as without chunks), the
     * rest on a thread of their own, each chunk twice the last up to {@code maxChunkRows}.
     * {@code validate} must be safe to run on two threads at once.
     */
    public static <R> ValidatedChunks start(List<R> requests, int maxChunkRows, Function<List<R>, InsertBatch> validate) {
        return new ValidatedChunks(requests, maxChunkRows, validate);
    }

    /** Ends by queuing END or what it threw, whatever it threw: the caller waits for one or the other. */
    private <R> void validateRest(List<R> requests, int firstRows, int maxChunkRows, Function<List<R>, InsertBatch> validate) {
        Object last = END;
        try {
            int rows = firstRows;
            for (int from = firstRows; from < requests.size() && !closed; from += rows) {
                rows = Math.min(maxChunkRows, rows * 2);
                ready.add(validate.apply(requests.subList(from, Math.min(requests.size(), from + rows))));
            }
        } catch (Throwable t) {
            last = t;
        } finally {
            ready.add(last);
        }
    }

    /**
     * The next chunk's rows, in request order, waiting for their validation; null after the last.
     * Throws what validating the chunk threw, with where this call was made as a suppressed
     * exception (the thrown one's trace is the validation thread's). The wait is not cut short by
     * an interrupt (restored on return): the validation thread always ends, and an enqueue of one
     * chunk would not have noticed the interrupt either.
     */
    public InsertBatch next() {
        if (first != null) {
            InsertBatch chunk = first;
            first = null;
            return chunk;
        }
        if (ended) {
            return null;
        }
        Object item = WorkerThreads.uninterruptibly(ready::take);
        if (item == END) {
            ended = true;
            return null;
        }
        if (item instanceof Throwable failure) {
            ended = true;
            failure.addSuppressed(new CalledFrom(Thread.currentThread()));
            if (failure instanceof Error error) {
                throw error;
            }
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            // A checked exception thrown where none is declared (a sneaky throw in user code).
            throw new SkipjackException("validating the enqueue's requests failed: " + failure, failure);
        }
        return (InsertBatch) item;
    }

    /**
     * Stops validating chunks nobody will insert (the call failed) and waits for the chunk under
     * way, so no validation (user code: serializers, partition functions) runs after the call has
     * returned. After the last chunk was taken the thread has ended already.
     */
    @Override
    public void close() {
        closed = true;
        WorkerThreads.uninterruptibly(() -> {
            validator.join();
            return null;
        });
    }

    /** Where the enqueue whose request failed validation on the validation thread was called. */
    private static final class CalledFrom extends Exception {
        CalledFrom(Thread caller) {
            super("the enqueue was called on thread " + caller.getName() + " here; its requests after the first "
                    + "chunk were validated on thread skipjack-enqueue-validation");
        }
    }
}
