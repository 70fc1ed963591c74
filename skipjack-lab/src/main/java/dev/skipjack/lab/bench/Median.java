package dev.skipjack.lab.bench;

import java.util.Arrays;

/** The median of a benchmark's rounds: one slow or lucky round on a shared machine does not move it. */
public final class Median {

    private Median() {
    }

    public static double of(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
