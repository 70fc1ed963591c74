package dev.skipjack.examples.signup;

/** Sends email; a real application puts its mail provider behind this. */
public interface Mailer {

    void send(String to, String subject, String body);
}
