package dev.skipjack.examples.signup;

import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.Outcome;
import dev.skipjack.spring.HandlesKind;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Sends the welcome email of a new account and records when. A handler is an ordinary bean: the
 * starter registers it for the kind {@code @HandlesKind} names, with the args type read from
 * {@code JobHandler<WelcomeEmail>}. A job may run more than once (a crash after the send, before
 * the completion), so the handler skips an account already welcomed.
 */
@Component
@HandlesKind("welcome-email")
class WelcomeEmailHandler implements JobHandler<WelcomeEmail> {

    private final Mailer mailer;
    private final JdbcClient jdbc;

    WelcomeEmailHandler(Mailer mailer, JdbcClient jdbc) {
        this.mailer = mailer;
        this.jdbc = jdbc;
    }

    @Override
    public Outcome handle(Job<WelcomeEmail> job) {
        WelcomeEmail args = job.args();
        boolean welcomed = jdbc.sql("select welcomed_at is not null from accounts where id = ?")
                .param(args.accountId()).query(Boolean.class).single();
        if (!welcomed) {
            mailer.send(args.email(), "Welcome!", "Thanks for signing up.");
            jdbc.sql("update accounts set welcomed_at = now() where id = ?").param(args.accountId()).update();
        }
        return Outcome.complete();
    }
}
