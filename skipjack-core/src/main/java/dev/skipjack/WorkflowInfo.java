package dev.skipjack;

import java.time.Instant;
import java.util.List;

/**
 * A workflow as stored, for inspection ({@link SkipjackAdmin#workflow(long)}): its state, how many
 * of its jobs are not terminal yet ({@code remaining}), and each step with its job and the steps it
 * depends on. Times are the database's.
 */
public record WorkflowInfo(long id, String name, WorkflowState state, WorkflowPolicy policy, int remaining,
                           Instant createdAt, Instant finishedAt, List<Step> steps) {

    /**
     * One step: its name, the steps it depends on (with whether each edge is satisfied yet), and
     * its job as stored.
     */
    public record Step(String name, List<String> dependsOn, List<String> satisfied, JobInfo job) {
        public Step {
            dependsOn = List.copyOf(dependsOn);
            satisfied = List.copyOf(satisfied);
        }
    }

    public WorkflowInfo {
        steps = List.copyOf(steps);
    }

    /** The step called {@code name}; {@link IllegalArgumentException} if the workflow has none. */
    public Step step(String name) {
        for (Step s : steps) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("workflow " + id + " has no step " + Limits.quote(name));
    }
}
