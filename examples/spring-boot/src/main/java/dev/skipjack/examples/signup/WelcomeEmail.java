package dev.skipjack.examples.signup;

import dev.skipjack.JobKind;

/**
 * The args of a welcome-email job: which account, and where to send it.
 *
 * @param accountId the new account
 * @param email     its address
 */
public record WelcomeEmail(long accountId, String email) {

    /** The kind producers enqueue and {@link WelcomeEmailHandler} handles. */
    public static final JobKind<WelcomeEmail> KIND = JobKind.of("welcome-email", WelcomeEmail.class);
}
