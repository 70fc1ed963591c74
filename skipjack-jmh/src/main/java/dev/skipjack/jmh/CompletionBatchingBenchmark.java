package dev.skipjack.jmh;

import dev.skipjack.DatabaseClock;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.complete.Completion;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The completion path up to the driver: submit finished executions to the {@link BatchCompleter},
 * its writer threads gather batches, {@link CompletionWriter} splits them by outcome and builds
 * the id and attempt arrays, and the written keys come back. The database is a stand-in whose
 * statements do nothing, so this measures Skipjack's own cost per acknowledgement (queueing,
 * batching, boxing into arrays), not the round trip.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CompletionBatchingBenchmark {

    private static final int JOBS = 1_000;

    /** Writers' statement latency stand-in: 0 is the bare cost; 1 ms lets batches grow as under load. */
    @Param({"0", "1"})
    public int statementMillis;

    private BatchCompleter<Long> completer;
    private final AtomicLong written = new AtomicLong();
    private long nextId;

    @Setup(Level.Trial)
    public void setUp() {
        CompletionWriter writer = new CompletionWriter(Dialect.POSTGRES.statements(new TableNames("public", "skipjack_"), new DatabaseClock()));
        completer = new BatchCompleter<>(new NoDatabase(statementMillis), writer, id -> written.incrementAndGet(),
                (completion, error) -> completion, "jmh");
        completer.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        completer.stop(Duration.ofSeconds(5));
    }

    @Benchmark
    @OperationsPerInvocation(JOBS)
    public long submitAndAwaitWritten() {
        long target = written.get() + JOBS;
        for (int i = 0; i < JOBS; i++) {
            long id = nextId++;
            completer.submit(id, Completion.completed(id, 1));
        }
        while (written.get() < target) {
            Thread.onSpinWait();
        }
        return target;
    }

    /** Connections whose statements and arrays do nothing but take {@code statementMillis}. */
    private static final class NoDatabase implements DataSource {

        private final Connection connection;

        NoDatabase(int statementMillis) {
            PreparedStatement statement = proxy(PreparedStatement.class, (self, method, args) -> switch (method.getName()) {
                case "executeUpdate" -> {
                    if (statementMillis > 0) {
                        Thread.sleep(statementMillis);
                    }
                    yield 0;
                }
                default -> defaultValue(method.getReturnType());
            });
            Array array = proxy(Array.class, (self, method, args) -> defaultValue(method.getReturnType()));
            connection = proxy(Connection.class, (self, method, args) -> switch (method.getName()) {
                case "prepareStatement" -> statement;
                case "createArrayOf" -> array;
                case "getAutoCommit" -> true;
                default -> defaultValue(method.getReturnType());
            });
        }

        @Override
        public Connection getConnection() {
            return connection;
        }

        @Override
        public Connection getConnection(String username, String password) {
            return connection;
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }

        @SuppressWarnings("unchecked")
        private static <T> T proxy(Class<T> type, java.lang.reflect.InvocationHandler handler) {
            return (T) Proxy.newProxyInstance(CompletionBatchingBenchmark.class.getClassLoader(), new Class<?>[] {type}, handler);
        }

        private static Object defaultValue(Class<?> type) {
            if (!type.isPrimitive() || type == void.class) {
                return null;
            }
            if (type == boolean.class) {
                return false;
            }
            if (type == long.class) {
                return 0L;
            }
            if (type == int.class) {
                return 0;
            }
            return null;
        }
    }
}
