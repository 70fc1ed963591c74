package dev.skipjack;

import java.util.List;

/**
 * A workflow was refused where it was built or enqueued, because of its shape: nothing was
 * inserted. {@link #problem()} says what is wrong, {@link #steps()} which steps are involved (for
 * a cycle, the steps around it in order, the first repeated at the end).
 */
public final class InvalidWorkflowException extends InvalidJobException {

    /** What is wrong with the workflow. */
    public enum Problem {
        /** The workflow or step name is not 1-128 of letters, digits, '_', '-', '.', ':' starting with a letter. */
        INVALID_NAME,
        /** No step at all. */
        EMPTY,
        /** More than {@link Workflow#MAX_STEPS} steps. */
        TOO_MANY_STEPS,
        /** Two steps of one name. */
        DUPLICATE_STEP,
        /** A step depends on a step the workflow does not have. */
        UNKNOWN_PARENT,
        /** Steps depend on each other in a circle, so none of them could ever run. */
        CYCLE,
        /** A step asks for something a workflow job cannot have (a unique key). */
        UNSUPPORTED_OPTION,
        /**
         * On a {@link ShardedSkipjack}: the steps' queue pins or keys send them to different shards,
         * and a workflow lives in one database.
         */
        SPANS_SHARDS
    }

    private final Problem problem;
    private final List<String> steps;

    public InvalidWorkflowException(Problem problem, List<String> steps, String message) {
        super(message);
        this.problem = problem;
        this.steps = List.copyOf(steps);
    }

    public Problem problem() {
        return problem;
    }

    /** The steps involved, in the order the message names them. */
    public List<String> steps() {
        return steps;
    }
}
