package dev.skipjack.internal.maintenance;

import java.time.Duration;

/**
 * One kind of periodic work of a started node. A task only does its round; when it runs, on which
 * nodes, and what happens when it fails is the {@link MaintenanceService}'s business.
 */
public interface MaintenanceTask {

    /** Where a task runs. */
    enum Scope {
        /** On every started node (promotion, pause refresh, the election itself). */
        EVERY_NODE,
        /** Only on the node that currently leads maintenance (rescue, retention, two-phase resolver). */
        LEADER
    }

    /** A short name for logs, e.g. {@code lease rescue}. */
    String name();

    Scope scope();

    /** How long after one round ends the next one starts, when the round succeeded. */
    Duration interval();

    /** Delay before the first round; zero runs it as soon as the service starts. */
    default Duration firstDelay() {
        return Duration.ZERO;
    }

    /** One round. May throw anything: the service logs it, counts it and backs off. */
    void runRound() throws Exception;
}
