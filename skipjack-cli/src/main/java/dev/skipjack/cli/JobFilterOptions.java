package dev.skipjack.cli;

import dev.skipjack.JobQuery;
import dev.skipjack.JobState;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The job filters {@code jobs list} and the bulk forms of {@code jobs retry|cancel|...} share. */
public final class JobFilterOptions {

    @Option(names = {"-q", "--queue"}, paramLabel = "QUEUE", split = ",", description = "Only these queues (repeat or comma-separate).")
    private List<String> queues = new ArrayList<>();

    @Option(names = {"-k", "--kind"}, paramLabel = "KIND", split = ",", description = "Only these kinds.")
    private List<String> kinds = new ArrayList<>();

    @Option(names = {"-s", "--state"}, paramLabel = "STATE", split = ",",
            description = "Only these states: scheduled, available, running, retryable, completed, discarded, cancelled.")
    private List<String> states = new ArrayList<>();

    @Option(names = "--args", paramLabel = "JSON",
            description = "Only jobs whose args contain this JSON, e.g. '{\"userId\": 42}' (jsonb @>).")
    private String args;

    @Option(names = "--tag", paramLabel = "TAG", description = "Only jobs carrying this tag.")
    private String tag;

    @Option(names = "--since", paramLabel = "AGE", converter = DurationConverter.class,
            description = "Only jobs created within this long, e.g. 1h.")
    private Duration since;

    @Option(names = "--created-after", paramLabel = "INSTANT", description = "Only jobs created at or after, e.g. 2026-11-21T10:00:00Z.")
    private Instant createdAfter;

    @Option(names = "--created-before", paramLabel = "INSTANT", description = "Only jobs created before this instant.")
    private Instant createdBefore;

    /** True when the user gave at least one filter, so a bulk action does not hit every job by accident. */
    boolean any() {
        return !queues.isEmpty() || !kinds.isEmpty() || !states.isEmpty() || args != null || tag != null || since != null
                || createdAfter != null || createdBefore != null;
    }

    JobQuery toQuery() {
        JobQuery q = JobQuery.all();
        if (!queues.isEmpty()) {
            q = q.queue(queues.toArray(String[]::new));
        }
        if (!kinds.isEmpty()) {
            q = q.kind(kinds.toArray(String[]::new));
        }
        if (!states.isEmpty()) {
            q = q.state(states.stream().map(JobFilterOptions::state).toArray(JobState[]::new));
        }
        if (args != null) {
            q = q.argsContain(args);
        }
        if (tag != null) {
            q = q.tag(tag);
        }
        Instant from = createdAfter;
        if (since != null) {
            Instant sinceStart = Instant.now().minus(since);
            from = from == null || sinceStart.isAfter(from) ? sinceStart : from;
        }
        if (from != null) {
            q = q.createdFrom(from);
        }
        if (createdBefore != null) {
            q = q.createdBefore(createdBefore);
        }
        return q;
    }

    private static JobState state(String value) {
        try {
            return JobState.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new dev.skipjack.InvalidOptionException("unknown state '" + value
                    + "': use scheduled, available, running, retryable, completed, discarded or cancelled");
        }
    }
}
