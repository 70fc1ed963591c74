package dev.skipjack;

/** {@link JobReporter#discarding()}. */
enum DiscardingReporter implements JobReporter {
    INSTANCE;

    @Override
    public void progress(int percent, String message) {
    }

    @Override
    public void log(String line) {
    }
}
