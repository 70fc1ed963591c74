package dev.skipjack.cli.demo.features;

/** A check's verdict and the human line saying what was checked, with the figures read back. */
public record CheckResult(boolean passed, String description) {

    public static CheckResult of(boolean passed, String description) {
        return new CheckResult(passed, description);
    }
}
