package dev.skipjack.cli.demo.features;

import dev.skipjack.JobInfo;
import dev.skipjack.JobQuery;
import dev.skipjack.Skipjack;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the limits and ordered checks judge: each job of a kind as the database holds it, with the
 * concurrency key stored in its row and the interval it ran in.
 *
 * <p>The interval is the job's {@code attempted_at} (set by the claim, at the instant it takes the
 * row) to its {@code finished_at} (set by the completion), both the database's clock: the handler
 * ran inside it, and the job held
 * its key's slot over all of it (a slot is taken at admission, before the claim, and given back with
 * the completion). So if these intervals never overlap more than a key's limit, neither did the
 * handlers. Resolution: microseconds on PostgreSQL and MariaDB ({@code DATETIME(6)}), milliseconds
 * on SQLite; an interval ending at the instant another starts does not overlap it (at millisecond
 * resolution the slot is handed over within the same millisecond). {@code attempted_at} is the last
 * attempt's, so a job that ran more than once is reported: its earlier attempts are not in the figures.
 */
record StoredRuns(List<Stored> jobs) {

    /** One job: its row, and the concurrency key its row holds (null when none). */
    record Stored(JobInfo job, String concurrencyKey) {

        Instant start() {
            return job.attemptedAt();
        }

        Instant end() {
            return job.finishedAt();
        }
    }

    /** The jobs of {@code kind} whose args contain {@code argsContain}, by id, with their stored keys. */
    static StoredRuns read(Skipjack client, FeatureContext context, String kind, String argsContain) throws SQLException {
        List<JobInfo> jobs = client.admin().jobs(JobQuery.all().kind(kind).argsContain(argsContain)
                .limit(JobQuery.MAX_LIMIT)).jobs();
        Map<Long, String> keys = new HashMap<>();
        // The key is not part of JobInfo: read it from the row itself.
        try (Connection c = context.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id, concurrency_key FROM " + client.jobsTable()
                     + " WHERE kind = ?")) {
            ps.setString(1, kind);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    keys.put(rs.getLong(1), rs.getString(2));
                }
            }
        }
        List<Stored> stored = new ArrayList<>();
        for (JobInfo job : jobs) {
            stored.add(new Stored(job, keys.get(job.id())));
        }
        stored.sort(Comparator.comparingLong(s -> s.job().id()));
        return new StoredRuns(List.copyOf(stored));
    }

    /** Jobs that ran more than once: their earlier attempts' times are not stored. */
    long ranMoreThanOnce() {
        return jobs.stream().filter(s -> s.job().attempt() > 1).count();
    }

    /** Jobs missing a start or an end. */
    long withoutTimes() {
        return jobs.stream().filter(s -> s.start() == null || s.end() == null).count();
    }

    /** The jobs per stored key, each list in id (enqueue) order. */
    Map<String, List<Stored>> byKey() {
        Map<String, List<Stored>> byKey = new java.util.TreeMap<>();
        for (Stored s : jobs) {
            byKey.computeIfAbsent(String.valueOf(s.concurrencyKey()), k -> new ArrayList<>()).add(s);
        }
        return byKey;
    }

    /**
     * The most of {@code runs} whose intervals overlap at one instant. An end at the same instant as
     * a start counts first: the slot was free by then. Runs without both times are left out.
     */
    static int maxOverlap(List<Stored> runs) {
        List<long[]> events = new ArrayList<>();
        for (Stored s : runs) {
            if (s.start() != null && s.end() != null) {
                events.add(new long[]{micros(s.start()), +1});
                events.add(new long[]{micros(s.end()), -1});
            }
        }
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0;
        int most = 0;
        for (long[] e : events) {
            now += (int) e[1];
            most = Math.max(most, now);
        }
        return most;
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }
}
