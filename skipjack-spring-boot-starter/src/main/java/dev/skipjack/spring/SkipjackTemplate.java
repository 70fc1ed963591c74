package dev.skipjack.spring;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.EnqueueResult;
import dev.skipjack.EnqueuedWorkflow;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.Skipjack;
import dev.skipjack.Workflow;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Enqueues in the caller's Spring-managed transaction when there is one (F-6): inside a
 * {@code @Transactional} method (or a {@code TransactionTemplate}) on the application's
 * DataSource, the job is inserted on the transaction's connection, so it exists if and only if
 * that transaction commits, and workers see it only then. Outside a transaction, each call
 * enqueues in its own transaction, as {@link Skipjack} does.
 *
 * <pre>{@code
 * @Transactional
 * public void register(User user) {
 *     users.insert(user);
 *     skipjack.enqueue(SEND_EMAIL, new SendEmail(user.email(), "Welcome"));  // commits with the user
 * }
 * }</pre>
 *
 * A transaction joined is one whose connection Spring holds for this DataSource: a
 * {@code DataSourceTransactionManager}'s, or a {@code JpaTransactionManager}'s that exposes its
 * JDBC connection. A transaction of another resource (another DataSource, JTA without this
 * DataSource enlisted) is not joined: the job is enqueued in its own transaction. Every method
 * throws as the {@link Skipjack} method of the same name, and with {@link IllegalStateException} in
 * a read-only transaction, and never leaves the caller's transaction unusable. Thread-safe.
 */
public class SkipjackTemplate {

    private final Skipjack skipjack;
    private final DataSource dataSource;

    /**
     * A template enqueueing through {@code skipjack} in the Spring transactions on {@code dataSource}.
     *
     * @param skipjack   the client
     * @param dataSource the DataSource the client was built on, whose transactions are joined
     */
    public SkipjackTemplate(Skipjack skipjack, DataSource dataSource) {
        this.skipjack = Objects.requireNonNull(skipjack, "skipjack");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Enqueues one job of {@code kind} with default options; returns its id.
     *
     * @param kind the kind's handle
     * @param args the job's args
     * @param <T>  the args type
     * @return the job's id
     */
    public <T> long enqueue(JobKind<T> kind, T args) {
        return inCallerTransaction(c -> skipjack.enqueue(c, kind, args), () -> skipjack.enqueue(kind, args));
    }

    /**
     * Enqueues one job of {@code kind} with {@code options}; returns its id.
     *
     * @param kind    the kind's handle
     * @param args    the job's args
     * @param options where and when it runs
     * @param <T>     the args type
     * @return the job's id
     */
    public <T> long enqueue(JobKind<T> kind, T args, EnqueueOptions options) {
        return inCallerTransaction(c -> skipjack.enqueue(c, kind, args, options), () -> skipjack.enqueue(kind, args, options));
    }

    /**
     * Enqueues one job of the kind named {@code kind}, which the client must have registered (a
     * handler bean, or a kind declared by a customizer); returns its id.
     *
     * @param kind the kind's name
     * @param args the job's args
     * @return the job's id
     */
    public long enqueue(String kind, Object args) {
        return inCallerTransaction(c -> skipjack.enqueue(c, kind, args), () -> skipjack.enqueue(kind, args));
    }

    /**
     * As {@link #enqueue(String, Object)}, with {@code options}.
     *
     * @param kind    the kind's name
     * @param args    the job's args
     * @param options where and when it runs
     * @return the job's id
     */
    public long enqueue(String kind, Object args, EnqueueOptions options) {
        return inCallerTransaction(c -> skipjack.enqueue(c, kind, args, options), () -> skipjack.enqueue(kind, args, options));
    }

    /**
     * Enqueues many jobs with multi-row inserts; one bad request inserts none. Returns ids in
     * request order.
     *
     * @param requests the jobs
     * @return their ids, in request order
     */
    public List<Long> enqueueAll(List<JobRequest> requests) {
        return inCallerTransaction(c -> skipjack.enqueueAll(c, requests), () -> skipjack.enqueueAll(requests));
    }

    /**
     * Enqueues one request, saying whether it was a duplicate of a unique job (F-10).
     *
     * @param request the job
     * @return its id, and whether it was a duplicate
     */
    public EnqueueResult enqueueWithResult(JobRequest request) {
        return inCallerTransaction(c -> skipjack.enqueueWithResult(c, request), () -> skipjack.enqueueWithResult(request));
    }

    /**
     * As {@link #enqueueAll(List)}, saying for each request whether it was a duplicate of a unique
     * job (F-10).
     *
     * @param requests the jobs
     * @return each request's id and whether it was a duplicate, in request order
     */
    public List<EnqueueResult> enqueueAllWithResults(List<JobRequest> requests) {
        return inCallerTransaction(c -> skipjack.enqueueAllWithResults(c, requests), () -> skipjack.enqueueAllWithResults(requests));
    }

    /**
     * Enqueues a workflow (F-14): its jobs and the steps they depend on.
     *
     * @param workflow the workflow
     * @return its id and its jobs' ids
     */
    public EnqueuedWorkflow enqueueWorkflow(Workflow workflow) {
        return inCallerTransaction(c -> skipjack.enqueueWorkflow(c, workflow), () -> skipjack.enqueueWorkflow(workflow));
    }

    /**
     * The client, for what the template does not offer (admin, schedules, enqueue in a transaction
     * of one's own connection).
     *
     * @return the client
     */
    public Skipjack skipjack() {
        return skipjack;
    }

    /** Whether a call now would join the caller's transaction rather than run in its own. */
    boolean joinsTransaction() {
        return TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.getResource(dataSource) != null;
    }

    private static String transactionName() {
        String name = TransactionSynchronizationManager.getCurrentTransactionName();
        return name == null ? "unnamed" : name;
    }

    private <R> R inCallerTransaction(Function<Connection, R> inTransaction, Supplier<R> alone) {
        // Only a connection Spring already holds for this DataSource is the caller's transaction;
        // asking DataSourceUtils otherwise would fetch a fresh autocommit connection and bind it.
        if (!joinsTransaction()) {
            return alone.get();
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            // Refused here, before any SQL: the database would refuse the insert and abort the caller's transaction.
            throw new IllegalStateException("cannot enqueue in a read-only transaction (" + transactionName()
                    + "): the job would have to commit with it. Enqueue from a read-write @Transactional method, or"
                    + " outside any transaction");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return inTransaction.apply(connection);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}
