package dev.skipjack.cli.demo.features;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.EnqueueOptions;
import dev.skipjack.EnqueuedWorkflow;
import dev.skipjack.JobInfo;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.JobState;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.Workflow;
import dev.skipjack.WorkflowInfo;
import dev.skipjack.WorkflowState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static dev.skipjack.Workflow.dependsOn;

/**
 * Workflows (F-14): a fan-out/fan-in. {@code split} fans out to {@link #PARTS} parts, run by two
 * clients; {@code merge} depends on every part and adds up their outputs. Read back from the
 * database: the workflow completed, every part started after {@code split} finished, {@code merge}
 * started after the last part finished (the jobs' attempt and finish times, both the database's
 * clock), and the sum {@code merge} recorded is the sum of the outputs the parts recorded.
 */
public class WorkflowCheck implements FeatureCheck {

    public record Split(String run, int parts) {
    }

    public record Part(String run, int n) {
    }

    public record Merge(String run) {
    }

    /** What a part records: its number and its value (the square of its number). */
    public record PartOutput(int n, long value) {
    }

    /** What merge records: how many parents' outputs it read, and their sum. */
    public record Merged(int partsRead, long sum) {
    }

    public static final JobKind<Split> SPLIT = JobKind.of("features-workflow-split", Split.class);
    public static final JobKind<Part> PART = JobKind.of("features-workflow-part", Part.class);
    public static final JobKind<Merge> MERGE = JobKind.of("features-workflow-merge", Merge.class);
    static final String QUEUE = "features-workflow";
    static final int PARTS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "workflows";
    }

    @Override
    public Set<String> kinds() {
        return Set.of(SPLIT.name(), PART.name(), MERGE.name());
    }

    @Override
    public CheckResult run(FeatureContext context) throws Exception {
        String run = context.runToken();
        EnqueueOptions queue = EnqueueOptions.defaults().withQueue(QUEUE);
        Workflow fanOutFanIn = Workflow.named("features-demo").add("split", JobRequest.of(SPLIT, new Split(run, PARTS), queue));
        String[] parts = new String[PARTS];
        for (int n = 1; n <= PARTS; n++) {
            parts[n - 1] = "part-" + n;
            fanOutFanIn = fanOutFanIn.add(parts[n - 1], JobRequest.of(PART, new Part(run, n), queue), dependsOn("split"));
        }
        fanOutFanIn = fanOutFanIn.add("merge", JobRequest.of(MERGE, new Merge(run), queue), dependsOn(parts));

        List<Skipjack> clients = new ArrayList<>();
        try {
            for (int i = 1; i <= 2; i++) {
                clients.add(context.client("workflow-node-" + i).queue(QUEUE, 4)
                        .handler(SPLIT, job -> Outcome.complete())
                        .handler(PART, job -> {
                            // Parts take different times, so they finish in no particular order.
                            Thread.sleep(ThreadLocalRandom.current().nextInt(20, 200));
                            return Outcome.complete(new PartOutput(job.args().n(), (long) job.args().n() * job.args().n()));
                        })
                        .handler(MERGE, job -> {
                            long sum = 0;
                            int read = 0;
                            for (String parent : job.workflow().parentOutputs().keySet()) {
                                PartOutput output = job.parentOutput(parent, PartOutput.class);
                                if (output != null) {
                                    sum += output.value();
                                    read++;
                                }
                            }
                            return Outcome.complete(new Merged(read, sum));
                        })
                        .build());
            }
            EnqueuedWorkflow enqueued = clients.get(0).enqueueWorkflow(fanOutFanIn);
            for (Skipjack client : clients) {
                client.start();
            }
            Skipjack reader = clients.get(0);
            boolean finished = context.await(() -> reader.admin().workflow(enqueued.id())
                    .map(w -> w.state() != WorkflowState.RUNNING).orElse(false));
            WorkflowInfo workflow = reader.admin().workflow(enqueued.id()).orElseThrow();
            if (!finished) {
                return CheckResult.of(false, String.format(Locale.ROOT,
                        "workflows: fan-out to %d parts and fan-in did not finish within %d s (%d jobs not ended)",
                        PARTS, context.timeout().toSeconds(), workflow.remaining()));
            }
            return verify(workflow, parts);
        } finally {
            for (Skipjack client : clients) {
                client.close();
            }
        }
    }

    private static CheckResult verify(WorkflowInfo workflow, String[] parts) throws Exception {
        JobInfo split = workflow.step("split").job();
        JobInfo merge = workflow.step("merge").job();
        int partsAfterSplit = 0;
        long sumOfParts = 0;
        Instant lastPartFinished = Instant.MIN;
        boolean allCompleted = split.state() == JobState.COMPLETED && merge.state() == JobState.COMPLETED;
        for (String part : parts) {
            JobInfo job = workflow.step(part).job();
            allCompleted &= job.state() == JobState.COMPLETED;
            if (startedAfter(job, split.finishedAt())) {
                partsAfterSplit++;
            }
            if (job.finishedAt() != null && job.finishedAt().isAfter(lastPartFinished)) {
                lastPartFinished = job.finishedAt();
            }
            if (job.outputJson() != null) {
                sumOfParts += JSON.readTree(job.outputJson()).path("value").asLong();
            }
        }
        boolean mergeAfterParts = startedAfter(merge, lastPartFinished);
        JsonNode merged = merge.outputJson() == null ? JSON.nullNode() : JSON.readTree(merge.outputJson());
        int partsRead = merged.path("partsRead").asInt(-1);
        long mergedSum = merged.path("sum").asLong(-1);
        boolean passed = workflow.state() == WorkflowState.COMPLETED && allCompleted && partsAfterSplit == parts.length
                && mergeAfterParts && partsRead == parts.length && mergedSum == sumOfParts;
        return CheckResult.of(passed, String.format(Locale.ROOT,
                "workflows: split -> %d parts -> merge, workflow %s: %d of %d parts started after split finished;"
                        + " merge started %s the last part finished (%s, last part %s); merge read %d parents' outputs,"
                        + " sum %d (the parts recorded %d)",
                parts.length, workflow.state().name().toLowerCase(Locale.ROOT), partsAfterSplit, parts.length,
                mergeAfterParts ? "after" : "NOT after", merge.attemptedAt(), lastPartFinished, partsRead, mergedSum,
                sumOfParts));
    }

    /** The job's last attempt started at or after {@code time} (both the database's clock). */
    private static boolean startedAfter(JobInfo job, Instant time) {
        return job.attemptedAt() != null && time != null && !job.attemptedAt().isBefore(time);
    }
}
