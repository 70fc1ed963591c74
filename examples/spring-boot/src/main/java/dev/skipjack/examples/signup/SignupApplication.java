package dev.skipjack.examples.signup;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A sign-up service: {@code POST /signups} creates an account and, in the same transaction, a
 * job that sends the welcome email ({@link SignupService}); {@link WelcomeEmailHandler} runs it.
 * Skipjack is configured by {@code skipjack-spring-boot-starter} from the application's
 * DataSource and {@code application.properties}.
 */
@SpringBootApplication
public class SignupApplication {

    public static void main(String[] args) {
        SpringApplication.run(SignupApplication.class, args);
    }
}
