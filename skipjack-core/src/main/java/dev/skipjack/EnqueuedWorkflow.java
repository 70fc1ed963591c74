package dev.skipjack;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link Skipjack#enqueueWorkflow(Workflow)} inserted: the workflow's id (for
 * {@link SkipjackAdmin#workflow(long)}) and each step's job id, by step name (parents before their children).
 */
public record EnqueuedWorkflow(long id, Map<String, Long> jobIds) {

    public EnqueuedWorkflow {
        jobIds = Collections.unmodifiableMap(new LinkedHashMap<>(jobIds));
    }

    /** The id of the job of {@code step}; {@link IllegalArgumentException} for a step the workflow does not have. */
    public long jobId(String step) {
        Long id = jobIds.get(step);
        if (id == null) {
            throw new IllegalArgumentException("workflow " + id() + " has no step " + Limits.quote(step)
                    + "; its steps: " + jobIds.keySet());
        }
        return id;
    }
}
