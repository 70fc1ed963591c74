package dev.skipjack.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.JobKind;
import dev.skipjack.cli.output.JsonOutput;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code skipjack enqueue KIND --args JSON}: adds one job from the terminal or a script. */
@Command(name = "enqueue", mixinStandardHelpOptions = true,
        description = {"Enqueues one job and prints its id.",
                "Example: skipjack enqueue send-email --args '{\"to\": \"ada@example.com\"}' --queue mail"})
public final class EnqueueCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;
    @Mixin
    private DatabaseOptions database;
    @Parameters(paramLabel = "KIND", description = "The job kind.")
    private String kind;
    @Option(names = "--args", defaultValue = "{}", paramLabel = "JSON", description = "The job's args as JSON (default: {}).")
    private String args;
    @Option(names = {"-q", "--queue"}, defaultValue = "default", description = "Queue (default: ${DEFAULT-VALUE}).")
    private String queue;
    @Option(names = "--priority", defaultValue = "0", description = "0 (most urgent) to 100 (default: ${DEFAULT-VALUE}).")
    private int priority;
    @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts before the job is discarded (default: the kind's).")
    private Integer maxAttempts;
    @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class, description = "Run no earlier than this from now, e.g. 10m.")
    private Duration delay;
    @Option(names = "--tag", paramLabel = "TAG", description = "A tag to find the job by later; repeatable.")
    private java.util.List<String> tags = new java.util.ArrayList<>();
    @Option(names = "--json", description = "Print {\"id\": N} for scripts.")
    private boolean json;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        JsonNode tree;
        try {
            tree = JsonOutput.MAPPER.readTree(args);
        } catch (JsonProcessingException e) {
            throw new CommandLine.ParameterException(cl, "--args is not valid JSON: " + e.getOriginalMessage());
        }
        // A producer needs no registration: the handle names the kind, and any JSON object is its args.
        JobKind<JsonNode> handle = JobsCommand.usage(cl, () -> JobKind.of(kind, JsonNode.class));
        long id;
        try (AdminConnection db = AdminConnection.open(cl, database)) {
            id = JobsCommand.usage(cl, () -> {
                EnqueueOptions options = EnqueueOptions.defaults().withQueue(queue).withPriority(priority);
                if (maxAttempts != null) {
                    options = options.withMaxAttempts(maxAttempts);
                }
                if (delay != null) {
                    options = options.withDelay(delay);
                }
                if (!tags.isEmpty()) {
                    options = options.withTags(tags.toArray(String[]::new));
                }
                return db.client().enqueue(handle, tree, options);
            });
        }
        if (json) {
            JsonOutput.print(cl.getOut(), JsonOutput.MAPPER.createObjectNode().put("id", id));
        } else {
            cl.getOut().println("Enqueued job " + id + " (" + kind + " on queue " + queue + ")");
            cl.getOut().flush();
        }
        return ExitCode.OK;
    }
}
