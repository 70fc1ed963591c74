package dev.skipjack;

import java.util.List;

/**
 * One page of a {@link JobQuery}, newest first.
 *
 * @param jobs       the jobs on this page, at most the query's limit
 * @param nextCursor pass to {@link JobQuery#after(Long)} for the next page; null when this is the last page
 */
public record JobPage(List<JobInfo> jobs, Long nextCursor) {

    public JobPage {
        jobs = List.copyOf(jobs);
    }

    public boolean hasMore() {
        return nextCursor != null;
    }
}
