package dev.skipjack.internal.maintenance;

import java.time.Duration;
import java.util.Objects;

/**
 * One kind of periodic work of a started node, as the {@link MaintenanceService} schedules it: a
 * name for logs, where it runs, how often, and the round itself. The work's own class only does
 * its round; when it runs and what happens when it fails is the service's business.
 *
 * @param interval   how long after one round ends the next one starts, when the round succeeded
 * @param firstDelay delay before the first round; zero runs it as soon as the service starts
 * @param untrusted  whether its round runs user code that may take any time (the two-phase
 *                   resolver's {@code externalEffectHappened}): such tasks run on a thread of their
 *                   own, so they can never hold back the election, the rescuer or the promoter
 */
public record MaintenanceTask(String name, Scope scope, Duration interval, Duration firstDelay, Round round,
                              boolean untrusted) {

    /** Where a task runs. */
    public enum Scope {
        /** On every started node (promotion, pause refresh, the election itself, the two-phase resolver). */
        EVERY_NODE,
        /** Only on the node that currently leads maintenance (rescue, retention). */
        LEADER
    }

    /** One round. May throw anything: the service logs it, counts it and backs off. */
    @FunctionalInterface
    public interface Round {
        void run() throws Exception;
    }

    public MaintenanceTask {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(round, "round");
        if (interval.isNegative() || interval.isZero() || firstDelay.isNegative()) {
            throw new IllegalArgumentException("task " + name + ": interval must be positive and first delay not negative");
        }
    }

    public static MaintenanceTask everyNode(String name, Duration interval, Round round) {
        return new MaintenanceTask(name, Scope.EVERY_NODE, interval, Duration.ZERO, round, false);
    }

    public static MaintenanceTask leaderOnly(String name, Duration interval, Round round) {
        return new MaintenanceTask(name, Scope.LEADER, interval, Duration.ZERO, round, false);
    }

    /** The same task with its first round {@code delay} after the service starts. */
    public MaintenanceTask startingAfter(Duration delay) {
        return new MaintenanceTask(name, scope, interval, delay, round, untrusted);
    }

    /** The same task, running user code: on a thread of its own ({@code untrusted}). */
    public MaintenanceTask runningUserCode() {
        return new MaintenanceTask(name, scope, interval, firstDelay, round, true);
    }
}
