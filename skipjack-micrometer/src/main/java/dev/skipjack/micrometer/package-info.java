/**
 * Micrometer metrics for Skipjack: {@link dev.skipjack.micrometer.SkipjackMetrics}, a
 * {@link dev.skipjack.SkipjackListener} that records counters, timers and a distribution summary
 * of what a client does, plus queue-depth gauges sampled through {@link dev.skipjack.SkipjackAdmin}.
 * The Spring Boot starter binds it by itself when this module and a {@code MeterRegistry} bean are
 * there.
 */
package dev.skipjack.micrometer;
