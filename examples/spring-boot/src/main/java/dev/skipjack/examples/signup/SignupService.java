package dev.skipjack.examples.signup;

import dev.skipjack.spring.SkipjackTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.util.UUID;

/**
 * Creates accounts. The welcome email is a job enqueued through {@link SkipjackTemplate} inside the
 * sign-up's transaction: it exists if and only if the account does, so a sign-up that fails
 * after the enqueue (an unknown referral code) sends no email, and one that commits always does,
 * even if the application stops right after the commit.
 */
@Service
public class SignupService {

    private final JdbcClient jdbc;
    private final SkipjackTemplate skipjack;

    public SignupService(JdbcClient jdbc, SkipjackTemplate skipjack) {
        this.jdbc = jdbc;
        this.skipjack = skipjack;
    }

    /**
     * Signs {@code email} up; a {@code referralCode} credits the account that shared it.
     *
     * @param email        the new account's address
     * @param referralCode another account's referral code, or null
     * @return the account and its welcome-email job
     * @throws UnknownReferralCodeException when no account has {@code referralCode}; nothing is kept
     */
    @Transactional
    public Signup signUp(String email, String referralCode) {
        long accountId = jdbc.sql("insert into accounts (email, referral_code) values (?, ?) returning id")
                .params(email, UUID.randomUUID().toString().substring(0, 8))
                .query(Long.class).single();
        long jobId = skipjack.enqueue(WelcomeEmail.KIND, new WelcomeEmail(accountId, email));
        if (referralCode != null) {
            int credited = jdbc.sql("update accounts set credits = credits + 5 where referral_code = ?")
                    .param(referralCode).update();
            if (credited == 0) {
                // Rolls back the account and the welcome-email job with it.
                throw new UnknownReferralCodeException(referralCode);
            }
        }
        return new Signup(accountId, jobId);
    }

    /**
     * A sign-up that was kept.
     *
     * @param accountId         the new account
     * @param welcomeEmailJobId the job that sends its welcome email
     */
    public record Signup(long accountId, long welcomeEmailJobId) {
    }
}
