package dev.skipjack;

import java.util.Map;

/**
 * A job's place in its workflow, as its handler sees it (F-14): the workflow, the step, and what
 * each parent recorded with {@link Outcome#complete(Object)}. Read when the job starts; a parent
 * that ended without completing (under {@link WorkflowPolicy#CONTINUE}) or completed without an
 * output has none.
 */
public interface WorkflowContext {

    /** The workflow's id. */
    long workflowId();

    /** This job's step name. */
    String step();

    /** Every parent's step name, with the output it recorded as JSON text, or null when it recorded none. */
    Map<String, String> parentOutputs();

    /**
     * The output of the parent {@code parentStep}, read as {@code type} with the client's JSON
     * mapper; null when that parent recorded none.
     *
     * @throws IllegalArgumentException when {@code parentStep} is not a parent of this job, or its
     *                                  output does not read as {@code type}
     */
    <R> R parentOutput(String parentStep, Class<R> type);
}
