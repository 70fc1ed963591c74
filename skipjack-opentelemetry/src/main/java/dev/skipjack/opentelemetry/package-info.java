/**
 * OpenTelemetry tracing for Skipjack: {@link dev.skipjack.opentelemetry.SkipjackTracing}, a
 * {@link dev.skipjack.JobInterceptor} that stores the enqueuing span's context with each job and
 * runs its handler in a consumer span, child of (or linked to) that span (docs/tracing.md).
 */
package dev.skipjack.opentelemetry;
