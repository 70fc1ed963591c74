package dev.skipjack.internal.enqueue;

import dev.skipjack.SkipjackException;
import dev.skipjack.internal.threads.WorkerThreads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * and no validation runs after the call has returned ({@link #close}). When the JVM cannot start
 * the thread (a process at its thread limit), the caller validates each chunk itself just before
 * inserting it, with its own thread-locals: the call is slower, not refused.
 */
public final class ValidatedChunks implements AutoCloseable {

    /**
     * Rows of the first chunk. Small, so the database starts inserting soon: in a fresh JVM the
     * first few thousand requests are validated by the interpreter, 5,000 of them took as long as
     * inserting them. Each later chunk doubles, as validation speeds up, to the statement's limit.
     */
    static final int FIRST_CHUNK_ROWS = 256;

    private static final Object END = new Object();

    private static final Logger log = LoggerFactory.getLogger(ValidatedChunks.class);
    /** Said once at warning level: a process at its thread limit would otherwise log it on every bulk enqueue. */
    private static final AtomicBoolean TOLD_NO_THREAD = new AtomicBoolean();

    private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>();
    /** The validation thread; null when it could not be started and the caller validates each chunk itself. */
    private final Thread validator;
    /** The chunks left to validate on the caller's thread, when there is no validation thread. */
    private final Iterator<InsertBatch> validatedHere;
    private InsertBatch first;
    private volatile boolean closed;
    private boolean ended;

    private <R> ValidatedChunks(List<R> requests, int maxChunkRows, Function<List<R>, InsertBatch> validate,
                                ThreadFactory threads) {
        // A copy: both threads read the requests, and the caller's list may not bear that (a lazy one).
        List<R> copy = new ArrayList<>(requests);
        int firstRows = Math.min(FIRST_CHUNK_ROWS, maxChunkRows);
        validator = startedOrNull(threads.newThread(() -> validateRest(copy, firstRows, maxChunkRows, validate)));
        validatedHere = validator != null ? null : new Iterator<>() {
            private final Iterator<List<R>> chunks = chunksAfterTheFirst(copy, firstRows, maxChunkRows).iterator();

            @Override
            public boolean hasNext() {
                return chunks.hasNext();
            }

            @Override
            public InsertBatch next() {
                return validate.apply(chunks.next());
            }
        };
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
     * rest on a thread of their own, each chunk twice the last up to {@code maxChunkRows} (or,
     * where the JVM cannot start that thread, on the calling thread as {@link #next} asks for each).
     * {@code validate} must be safe to run on two threads at once.
     */
    public static <R> ValidatedChunks start(List<R> requests, int maxChunkRows, Function<List<R>, InsertBatch> validate) {
        return start(requests, maxChunkRows, validate, ValidatedChunks::validationThread);
    }

    /** As {@link #start(List, int, Function)}, with the validation thread made by {@code threads}. */
    static <R> ValidatedChunks start(List<R> requests, int maxChunkRows, Function<List<R>, InsertBatch> validate,
                                     ThreadFactory threads) {
        return new ValidatedChunks(requests, maxChunkRows, validate, threads);
    }

    private static Thread validationThread(Runnable validation) {
        Thread thread = new Thread(validation, "skipjack-enqueue-validation");
        thread.setDaemon(true);
        return thread;
    }

    /**
     * Starts {@code thread}, or returns null when the JVM cannot start one ("unable to create
     * native thread" at a process or container thread limit): the enqueue then validates each
     * chunk on the caller's thread before inserting it, slower but complete, rather than failing
     * a call that needs no second thread to be correct.
     */
    private static Thread startedOrNull(Thread thread) {
        try {
            thread.start();
            return thread;
        } catch (OutOfMemoryError e) {
            String message = "could not start a thread to validate a bulk enqueue ahead of its inserts ({}); validating"
                    + " on the caller's thread";
            if (TOLD_NO_THREAD.compareAndSet(false, true)) {
                log.warn(message + " (said once; later ones at debug level)", e.toString());
            } else {
                log.debug(message, e.toString());
            }
            return null;
        }
    }

    /** The requests after the first chunk, in chunks that double up to {@code maxChunkRows}: the validation thread's order. */
    private static <R> List<List<R>> chunksAfterTheFirst(List<R> requests, int firstRows, int maxChunkRows) {
        List<List<R>> chunks = new ArrayList<>();
        int rows = firstRows;
        for (int from = firstRows; from < requests.size(); from += rows) {
            rows = Math.min(maxChunkRows, rows * 2);
            chunks.add(requests.subList(from, Math.min(requests.size(), from + rows)));
        }
        return chunks;
    }

    /** Ends by queuing END or what it threw, whatever it threw: the caller waits for one or the other. */
    private <R> void validateRest(List<R> requests, int firstRows, int maxChunkRows, Function<List<R>, InsertBatch> validate) {
        Object last = END;
        try {
            for (List<R> chunk : chunksAfterTheFirst(requests, firstRows, maxChunkRows)) {
                if (closed) {
                    break;
                }
                ready.add(validate.apply(chunk));
            }
        } catch (Throwable t) {
            last = t;
        } finally {
            ready.add(last);
        }
    }

    /**
     * The next chunk's rows, in request order, waiting for their validation; null after the last,
     * after a chunk failed, and after {@link #close}. Throws what validating the chunk threw; when
     * that was on the validation thread, with where this call was made as a suppressed exception
     * (the thrown one's trace is the validation thread's). The wait is not cut short by an
     * interrupt (restored on return): the validation thread always ends, and an enqueue of one
     * chunk would not have noticed the interrupt either.
     */
    public InsertBatch next() {
        if (ended || closed) {
            return null;
        }
        if (first != null) {
            InsertBatch chunk = first;
            first = null;
            return chunk;
        }
        if (validator == null) {
            if (!validatedHere.hasNext()) {
                ended = true;
                return null;
            }
            try {
                return validatedHere.next();
            } catch (Throwable t) {
                // As with the thread: after a bad chunk nothing more is validated or handed out.
                ended = true;
                throw t;
            }
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
        if (validator == null) {
            return;
        }
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
