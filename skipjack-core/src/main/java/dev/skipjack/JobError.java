package dev.skipjack;

import java.time.Instant;

/** One failed attempt, as recorded on the job row. */
public record JobError(Instant at, int attempt, String errorClass, String message, String stack) {
}
