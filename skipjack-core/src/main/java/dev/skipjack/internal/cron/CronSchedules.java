package dev.skipjack.internal.cron;

import dev.skipjack.CronSchedule;
import dev.skipjack.Misfire;
import dev.skipjack.ScheduleInfo;
import dev.skipjack.internal.enqueue.InsertRow;
import dev.skipjack.internal.enqueue.UniqueKeys;
import dev.skipjack.internal.sql.Params;
import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.Transactions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Stores, removes and lists cron schedules (F-11); {@link CronTicker} enqueues their ticks. */
public final class CronSchedules {

    private CronSchedules() {
    }

    /**
     * Stores {@code schedule}, whose job was validated into {@code job}, with its first tick after
     * {@code now}; an unchanged definition keeps its stored next tick (upsert_cron_schedule.sql).
     */
    public static void store(DataSource dataSource, SqlStatements sql, CronSchedule schedule, InsertRow job, Instant now)
            throws SQLException {
        String misfire = schedule.misfire().name().toLowerCase(Locale.ROOT);
        String zone = schedule.zone().getId();
        String hash = UniqueKeys.sha256(String.join("\u0000", schedule.expression(), zone, job.kind(), job.queue(), job.argsJson(),
                Integer.toString(job.priority()), Integer.toString(job.maxAttempts()), misfire,
                Boolean.toString(schedule.allowsOverlap())));
        Instant next = CronExpression.parse(schedule.expression()).nextAfter(now, schedule.zone()).orElse(CronTicker.NEVER);
        Params params = Params.of().text(schedule.name()).text(schedule.expression()).text(zone).text(job.kind())
                .text(job.queue()).text(job.argsJson()).integer(job.priority()).integer(job.maxAttempts()).text(misfire)
                .bool(schedule.allowsOverlap()).text(hash).instant(next);
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("upsert_cron_schedule"))) {
            params.bind(ps, 1, sql.dialect());
            ps.executeUpdate();
        }
    }

    public static boolean delete(DataSource dataSource, SqlStatements sql, String name) throws SQLException {
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("delete_cron_schedule"))) {
            ps.setString(1, name);
            return ps.executeUpdate() > 0;
        }
    }

    public static List<ScheduleInfo> list(DataSource dataSource, SqlStatements sql) throws SQLException {
        List<ScheduleInfo> out = new ArrayList<>();
        try (Connection c = Transactions.autoCommit(dataSource);
             PreparedStatement ps = c.prepareStatement(sql.get("list_cron_schedules"));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long lastJobId = rs.getLong(11);
                Long lastJob = rs.wasNull() ? null : lastJobId;
                out.add(new ScheduleInfo(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), Misfire.valueOf(rs.getString(7).toUpperCase(Locale.ROOT)),
                        rs.getBoolean(8), sql.dialect().getInstant(rs, 9), sql.dialect().getInstant(rs, 10),
                        lastJob));
            }
        }
        return out;
    }
}
