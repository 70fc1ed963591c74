package dev.skipjack;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The time Skipjack's SQL reads as "now": the database server's clock plus an offset, zero unless
 * a test moves it. The database clock stays the authority for leases, delays, backoff, retention
 * and rescue; a test that needs "five minutes later" advances this clock instead of sleeping, and
 * every statement of the client built with it (and of any other client given the same clock) sees
 * the shifted time from its next execution on.
 *
 * <pre>{@code
 * DatabaseClock clock = new DatabaseClock();
 * Skipjack skipjack = Skipjack.builder(dataSource).clock(clock)...build();
 * skipjack.enqueue("report", args, EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
 * clock.advance(Duration.ofHours(1));   // the job is due now
 * }</pre>
 *
 * Meant for tests. Moving it in production makes this client disagree with other nodes about
 * time. Thread-safe.
 */
public final class DatabaseClock {

    private final AtomicLong offsetMicros = new AtomicLong();

    /** A clock reading the database's own time, offset zero. */
    public DatabaseClock() {
    }

    /** Moves this clock forward by {@code amount}; negative amounts move it back. */
    public DatabaseClock advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        offsetMicros.addAndGet(Math.addExact(Math.multiplyExact(amount.getSeconds(), 1_000_000L),
                amount.getNano() / 1_000L));
        return this;
    }

    /** Back to the database's own time. */
    public DatabaseClock reset() {
        offsetMicros.set(0);
        return this;
    }

    /** How far this clock is from the database's own time. */
    public Duration offset() {
        return Duration.ofNanos(Math.multiplyExact(offsetMicros.get(), 1_000L));
    }

    /** The offset in microseconds, the resolution of the database's timestamps. */
    public long offsetMicros() {
        return offsetMicros.get();
    }

    @Override
    public String toString() {
        return "DatabaseClock[offset=" + offset() + "]";
    }
}
