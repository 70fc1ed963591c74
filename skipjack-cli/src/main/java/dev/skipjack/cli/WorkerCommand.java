package dev.skipjack.cli;

import dev.skipjack.QueueOptions;
import dev.skipjack.Skipjack;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * {@code skipjack worker}: runs handlers from the user's own jar. Each {@code --register} class
 * is a {@code java.util.function.Consumer<Skipjack.Builder>} with a public no-argument
 * constructor that registers handlers, so a handler jar needs no Skipjack-specific plugin API:
 * <pre>{@code java -cp skipjack-cli.jar:my-handlers.jar dev.skipjack.cli.SkipjackCli worker \
 *     --register com.example.EmailHandlers --queue mail:8}</pre>
 * Stops gracefully on SIGTERM or Ctrl-C (F-18).
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = {"Runs the handlers that --register classes add, until stopped (SIGTERM, Ctrl-C).",
                "A register class implements java.util.function.Consumer<dev.skipjack.Skipjack.Builder>;",
                "put its jar on the class path: java -cp skipjack-cli.jar:handlers.jar dev.skipjack.cli.SkipjackCli worker ..."})
public final class WorkerCommand implements Callable<Integer> {

    private static final int POOL_HEADROOM = 6;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;
    @Mixin
    private DatabaseOptions database;
    @Option(names = {"-r", "--register"}, required = true, paramLabel = "CLASS",
            description = "A class that registers handlers: implements Consumer<Skipjack.Builder>. Repeatable.")
    private List<String> registrars = new ArrayList<>();
    @Option(names = {"-q", "--queue"}, paramLabel = "NAME:CONCURRENCY", split = ",",
            description = "Queues to work and jobs at once of each (default: default:8). Repeatable.")
    private List<String> queues = new ArrayList<>(List.of("default:8"));
    @Option(names = "--migrate", description = "Create or upgrade Skipjack's tables before starting.")
    private boolean migrate;
    @Option(names = "--stop-after", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Stop gracefully after this long (for batch runs and tests).")
    private Duration stopAfter;

    @Override
    public Integer call() throws InterruptedException {
        CommandLine cl = spec.commandLine();
        List<QueueOptions> queueOptions = new ArrayList<>();
        for (String q : queues) {
            queueOptions.add(JobsCommand.usage(cl, () -> parseQueue(cl, q)));
        }
        List<Consumer<Skipjack.Builder>> loaded = new ArrayList<>();
        for (String name : registrars) {
            loaded.add(load(cl, name));
        }
        int slots = queueOptions.stream().mapToInt(QueueOptions::concurrency).sum();
        if (database.url().isEmpty()) {
            throw new CommandLine.ParameterException(cl, "worker needs a database: give --url or set SKIPJACK_DATABASE_URL");
        }
        PrintWriter out = cl.getOut();
        try (DatabaseConnection connection = DatabaseConnection.open(database.url(), slots + POOL_HEADROOM, out)) {
            Skipjack.Builder builder = Skipjack.builder(connection.dataSource()).schema(database.schemaOr(AdminConnection.DEFAULT_SCHEMA));
            queueOptions.forEach(builder::queue);
            for (Consumer<Skipjack.Builder> r : loaded) {
                r.accept(builder);
            }
            Skipjack skipjack = builder.build();
            if (migrate) {
                skipjack.migrate();
            }
            try (StopSignal stop = new StopSignal("skipjack-worker-stop")) {
                try {
                    skipjack.start();
                    out.println("Worker " + skipjack.workerId() + " running kinds " + skipjack.kinds() + " on queues "
                            + queueOptions.stream().map(q -> q.name() + ":" + q.concurrency()).toList() + "; Ctrl-C to stop.");
                    out.flush();
                    stop.await(stopAfter);
                } finally {
                    skipjack.close();
                }
            }
            out.println("Worker stopped.");
            out.flush();
        }
        return ExitCode.OK;
    }

    private static QueueOptions parseQueue(CommandLine cl, String spec) {
        String[] parts = spec.split(":", 2);
        try {
            return QueueOptions.of(parts[0], parts.length == 2 ? Integer.parseInt(parts[1]) : 8);
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(cl, "--queue '" + spec + "': concurrency must be a number, as in mail:8");
        }
    }

    @SuppressWarnings("unchecked")
    private static Consumer<Skipjack.Builder> load(CommandLine cl, String name) {
        try {
            Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
            if (!Consumer.class.isAssignableFrom(type)) {
                throw new CommandLine.ParameterException(cl, "--register " + name
                        + " does not implement java.util.function.Consumer<dev.skipjack.Skipjack.Builder>");
            }
            return (Consumer<Skipjack.Builder>) type.getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new CommandLine.ParameterException(cl, "--register " + name + ": class not found on the class path"
                    + " (run with java -cp skipjack-cli.jar:your-handlers.jar dev.skipjack.cli.SkipjackCli worker ...)");
        } catch (ReflectiveOperationException e) {
            throw new CommandLine.ParameterException(cl, "--register " + name + ": cannot create it with a public"
                    + " no-argument constructor: " + e);
        }
    }
}
