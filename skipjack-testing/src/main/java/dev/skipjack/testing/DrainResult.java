package dev.skipjack.testing;

import dev.skipjack.JobInfo;
import dev.skipjack.JobState;

import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@link SkipjackTester#drain()} ran: {@code runs} holds each run's job as stored right after
 * it, in run order (a job retried during the drain appears once per attempt).
 */
public record DrainResult(List<JobInfo> runs) {

    public DrainResult {
        runs = List.copyOf(runs);
    }

    /** Runs made (attempts, not distinct jobs). */
    public int count() {
        return runs.size();
    }

    /** Each job the drain ran, as its last run left it, in the order of their first run. */
    public Collection<JobInfo> jobs() {
        Map<Long, JobInfo> last = new LinkedHashMap<>();
        runs.forEach(j -> last.put(j.id(), j));
        return List.copyOf(last.values());
    }

    /** The jobs the drain ran that its last run left in {@code state}. */
    public List<JobInfo> jobs(JobState state) {
        return jobs().stream().filter(j -> j.state() == state).toList();
    }

    /** How many of the jobs run ended in each state they were left in (states without jobs absent). */
    public Map<JobState, Long> countByState() {
        return jobs().stream().collect(Collectors.groupingBy(JobInfo::state, () -> new EnumMap<>(JobState.class),
                Collectors.counting()));
    }

    @Override
    public String toString() {
        return "DrainResult[" + runs.size() + " runs of " + jobs().size() + " jobs, left " + countByState() + "]";
    }
}
