package dev.skipjack.internal.notify;

import dev.skipjack.internal.sql.SqlStatements;
import dev.skipjack.internal.sql.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * The NOTIFY side of F-16: one {@code pg_notify} per enqueue transaction on the jobs table's
 * channel, with the queues that got jobs as payload.
 */
public final class InsertNotifications {

    /** Payload meaning "any queue": used when the queue names would not fit a notification. */
    public static final String ALL_QUEUES = "*";
    /** PostgreSQL's limit on channel names is NAMEDATALEN - 1. */
    private static final int MAX_CHANNEL_LENGTH = 63;
    /** PostgreSQL refuses payloads of 8000 bytes and more; queue names are ASCII. */
    private static final int MAX_PAYLOAD_LENGTH = 7_000;

    private InsertNotifications() {
    }

    /**
     * The channel of a jobs table, {@code <schema>.<prefix>jobs}, cut to PostgreSQL's limit. Built
     * from validated names only. A cut name may be shared by two tables, which costs a spurious
     * wake-up and nothing else.
     */
    public static String channel(TableNames names) {
        String channel = names.schema() + "." + names.prefix() + "jobs";
        return channel.length() > MAX_CHANNEL_LENGTH ? channel.substring(0, MAX_CHANNEL_LENGTH) : channel;
    }

    /** Sends the notification on {@code c}, inside whatever transaction is open there. */
    public static void send(Connection c, SqlStatements sql, String channel, Collection<String> queues)
            throws SQLException {
        if (queues.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("notify_jobs_inserted"))) {
            ps.setString(1, channel);
            ps.setString(2, payload(queues));
            ps.execute();
        }
    }

    /** The payload naming {@code queues}: sorted, comma-separated, or {@link #ALL_QUEUES} when too long. */
    public static String payload(Collection<String> queues) {
        String joined = String.join(",", new TreeSet<>(queues));
        return joined.length() > MAX_PAYLOAD_LENGTH ? ALL_QUEUES : joined;
    }

    /** The queues named by a payload; empty for {@link #ALL_QUEUES}, meaning every queue. */
    public static Set<String> queuesOf(String payload) {
        if (payload == null || payload.isEmpty() || payload.equals(ALL_QUEUES)) {
            return Set.of();
        }
        return new TreeSet<>(Arrays.asList(payload.split(",")));
    }
}
