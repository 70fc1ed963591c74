/**
 * Helpers for applications' tests of their Skipjack jobs, against the real database: run a job on
 * the test's thread through its registered handler ({@link dev.skipjack.testing.SkipjackTester#run}),
 * find and assert enqueued jobs ({@link dev.skipjack.testing.SkipjackTester#assertEnqueued(JobMatcher)}),
 * drain queues ({@link dev.skipjack.testing.SkipjackTester#drain()}) and move the database clock
 * ({@link dev.skipjack.testing.SkipjackTester#advanceClock}). {@link dev.skipjack.testing.SkipjackExtension}
 * is the JUnit 5 face. See docs/testing.md.
 */
package dev.skipjack.testing;
