package dev.skipjack.lab.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker JVM the bench starts ({@link ScaleWorker}, {@link MemoryWorker}): the running JVM's
 * {@code java} and class path, the database and the worker's concurrency as arguments
 * ({@code jdbcUrl user(or -) schema concurrency ...}), the password in {@link #PASSWORD_ENV}, never
 * on the command line.
 */
record WorkerJvm(String jdbcUrl, String user, String schema, int concurrency) {

    static final String PASSWORD_ENV = "SKIPJACK_BENCH_PASSWORD";

    /** The worker's side: the first four arguments. */
    static WorkerJvm fromArgs(String[] argv) {
        return new WorkerJvm(argv[0], argv[1].equals("-") ? null : argv[1], argv[2], Integer.parseInt(argv[3]));
    }

    /** The worker's pool, as {@link ScaleWorkload#workerPool} makes it, with the password from the environment. */
    HikariDataSource pool() {
        return ScaleWorkload.workerPool(jdbcUrl, user, System.getenv(PASSWORD_ENV), schema, concurrency);
    }

    /** The bench's side: the command that starts {@code main} with these JVM flags and further arguments. */
    ProcessBuilder command(Class<?> main, List<String> jvmFlags, String password, String... more) {
        List<String> args = new ArrayList<>(List.of(jdbcUrl, user == null ? "-" : user, schema, Integer.toString(concurrency)));
        args.addAll(List.of(more));
        return java(main, jvmFlags, password, args);
    }

    /**
     * A JVM of this JVM's {@code java} and class path running {@code main} with {@code jvmFlags} and
     * {@code args}; the database password, when there is one, in {@link #PASSWORD_ENV}.
     */
    static ProcessBuilder java(Class<?> main, List<String> jvmFlags, String password, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        if (password != null) {
            pb.environment().put(PASSWORD_ENV, password);
        }
        return pb;
    }
}
