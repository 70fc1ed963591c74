package dev.skipjack.lab.bench;

/**
 * Issue 15's bar for cost as work grows: drain and pickup "flat within 15 %" from an empty table to
 * millions of terminal rows, and from concurrency 8 to 256. One-sided: throughput may not fall by
 * more than 15 %, latency may not rise by more than 15 %; the other way is noise or warm-up, not
 * cost.
 */
public final class FlatVerdict {

    /** The largest change that still counts as flat. */
    public static final double BAR = 0.15;

    private FlatVerdict() {
    }

    /** {@code ratio} is the larger load's throughput over the baseline's. */
    public static boolean throughputFlat(double ratio) {
        return ratio >= 1 - BAR;
    }

    /** {@code ratio} is the larger load's latency over the baseline's. */
    public static boolean latencyFlat(double ratio) {
        return ratio <= 1 + BAR;
    }

    public static String yesNo(boolean flat) {
        return flat ? "yes" : "no";
    }
}
