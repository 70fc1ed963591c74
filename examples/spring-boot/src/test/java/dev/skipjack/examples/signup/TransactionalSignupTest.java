package dev.skipjack.examples.signup;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The welcome-email job commits and rolls back with the sign-up's {@code @Transactional} method:
 * a kept sign-up has its job, which runs; a rolled-back one leaves neither account nor job.
 */
class TransactionalSignupTest extends SignupApplicationTestSupport {

    @Autowired
    SignupService signups;

    @Test
    void aCommittedSignUpKeepsItsWelcomeEmailJobAndTheJobRuns() {
        SignupService.Signup signup = signups.signUp("ada@example.com", null);

        assertJobCompletes(signup.welcomeEmailJobId());
        assertThat(welcomeEmailJobsFor("ada@example.com")).hasSize(1);
        assertThat(account("ada@example.com")).hasValueSatisfying(a -> assertThat(a.get("welcomed_at")).isNotNull());
    }

    @Test
    void aSignUpRolledBackAfterTheEnqueueLeavesNoJob() {
        assertThatThrownBy(() -> signups.signUp("bob@example.com", "no-such-code"))
                .isInstanceOf(UnknownReferralCodeException.class);

        assertThat(account("bob@example.com")).isEmpty();
        assertThat(welcomeEmailJobsFor("bob@example.com")).isEmpty();
    }

    @Test
    void aReferralCreditsTheReferrerInTheSameTransaction() {
        signups.signUp("cleo@example.com", null);
        String code = jdbc.sql("select referral_code from accounts where email = ?").param("cleo@example.com")
                .query(String.class).single();

        SignupService.Signup referred = signups.signUp("dan@example.com", code);

        assertJobCompletes(referred.welcomeEmailJobId());
        assertThat(account("cleo@example.com")).hasValueSatisfying(a -> assertThat(a.get("credits")).isEqualTo(5));
    }
}
