package dev.skipjack;

import java.time.Instant;

/** Jobs that finished in one time bucket starting at {@code start}, by final state. */
public record ThroughputBucket(Instant start, long completed, long discarded, long cancelled) {
}
