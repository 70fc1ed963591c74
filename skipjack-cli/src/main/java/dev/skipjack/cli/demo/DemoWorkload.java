package dev.skipjack.cli.demo;

import dev.skipjack.EnqueueOptions;
import dev.skipjack.Job;
import dev.skipjack.JobKind;
import dev.skipjack.JobRequest;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.RetryPolicy;
import dev.skipjack.Skipjack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the demo runs: the job kinds of a typical web application in typical proportions, with
 * their handlers. Which jobs fail is written into their args when they are planned, so every run
 * of the same size fails the same jobs and the summary can check the outcome of each.
 */
public final class DemoWorkload {

    public static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send-email", SendEmail.class);
    public static final JobKind<ResizeImage> RESIZE_IMAGE = JobKind.of("resize-image", ResizeImage.class);
    public static final JobKind<ChargeCard> CHARGE_CARD = JobKind.of("charge-card", ChargeCard.class);
    public static final JobKind<DemoBank.Transfer> TRANSFER = JobKind.of("transfer", DemoBank.Transfer.class);
    public static final Set<String> KINDS = Set.of(SEND_EMAIL.name(), RESIZE_IMAGE.name(), CHARGE_CARD.name(), TRANSFER.name());

    /** Money moves on its own queue, so a backlog of emails never delays a payment. */
    public static final String DEFAULT_QUEUE = EnqueueOptions.DEFAULT_QUEUE;
    public static final String CRITICAL_QUEUE = "critical";

    /** Attempts a charge gets before it is discarded. */
    public static final int CHARGE_MAX_ATTEMPTS = 3;

    /** Ordinary jobs run at this priority, so urgent ones (priority 0) overtake them. */
    private static final int NORMAL_PRIORITY = 5;
    private static final int URGENT_PRIORITY = 0;
    /** The same seed every run: runs of the same size enqueue the same jobs and compare fairly. */
    private static final long PLAN_SEED = 20_240_611L;

    // Short backoffs so that retried jobs finish within the demo's seconds, not the default's minutes.
    private static final RetryPolicy EMAIL_RETRIES = RetryPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(2));
    private static final RetryPolicy PAYMENT_RETRIES = RetryPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));

    /** Sends one email. {@code bounceFirstAttempt} makes the mail server turn the first attempt away. */
    public record SendEmail(String to, String template, boolean bounceFirstAttempt) {
    }

    public record ResizeImage(String imagePath, int width, int height) {
    }

    /** Charges a card. {@code alwaysDeclined} makes every attempt fail, so the job ends up discarded. */
    public record ChargeCard(String customerId, long amountCents, boolean alwaysDeclined) {
    }

    /** An expected, staged failure: the error history of a job says it was part of the demo. */
    static final class SimulatedFailure extends RuntimeException {
        SimulatedFailure(String message) {
            super(message);
        }
    }

    private DemoWorkload() {
    }

    /** Registers a handler for every demo kind: lease mode for most, transactional for transfers. */
    public static Skipjack.Builder registerHandlers(Skipjack.Builder builder, DemoBank bank) {
        return builder
                .handler(SEND_EMAIL, KindOptions.defaults().withRetryPolicy(EMAIL_RETRIES),
                        DemoWorkload::sendEmail)
                .handler(RESIZE_IMAGE, DemoWorkload::resizeImage)
                .handler(CHARGE_CARD,
                        KindOptions.defaults().withMaxAttempts(CHARGE_MAX_ATTEMPTS).withRetryPolicy(PAYMENT_RETRIES),
                        DemoWorkload::chargeCard)
                .transactionalHandler(TRANSFER,
                        KindOptions.defaults().withRetryPolicy(PAYMENT_RETRIES), bank::transfer);
    }

    /**
     * The jobs of one run, in enqueue order: about 80% emails (a few of them reminders delayed by
     * 1-5 s), 10% image resizes (a fifth of them urgent), 5% card charges and 5% transfers.
     */
    public static List<JobRequest> plan(int jobs) {
        Random random = new Random(PLAN_SEED);
        EnqueueOptions normal = EnqueueOptions.defaults().withPriority(NORMAL_PRIORITY);
        EnqueueOptions critical = EnqueueOptions.defaults().withQueue(CRITICAL_QUEUE);
        List<JobRequest> plan = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            int pick = random.nextInt(100);
            if (pick < 5) {
                plan.add(JobRequest.of(TRANSFER, DemoBank.randomTransfer(random), critical));
            } else if (pick < 10) {
                ChargeCard charge = new ChargeCard("cus_" + random.nextInt(100_000), 100 + random.nextInt(20_000),
                        random.nextInt(25) == 0);
                plan.add(JobRequest.of(CHARGE_CARD, charge, critical));
            } else if (pick < 20) {
                boolean urgent = random.nextInt(5) == 0;
                ResizeImage resize = new ResizeImage("uploads/" + i + ".jpg", 320 * (1 + random.nextInt(4)), 240);
                plan.add(JobRequest.of(RESIZE_IMAGE, resize, urgent ? normal.withPriority(URGENT_PRIORITY) : normal));
            } else if (random.nextInt(40) == 0) {
                SendEmail reminder = new SendEmail("user" + i + "@example.com", "trial-ending-reminder", false);
                plan.add(JobRequest.of(SEND_EMAIL, reminder, normal.withDelay(Duration.ofMillis(1000 + random.nextInt(4001)))));
            } else {
                SendEmail email = new SendEmail("user" + i + "@example.com", "welcome", random.nextInt(20) == 0);
                plan.add(JobRequest.of(SEND_EMAIL, email, normal));
            }
        }
        return plan;
    }

    private static Outcome sendEmail(Job<SendEmail> job) throws InterruptedException {
        if (job.args().bounceFirstAttempt() && job.attempt() == 1) {
            throw new SimulatedFailure("421 mail server busy, try again later");
        }
        // Most emails are handed to a local relay at once; now and then the relay is slow.
        if (ThreadLocalRandom.current().nextInt(4) == 0) {
            Thread.sleep(1);
        }
        return Outcome.complete();
    }

    private static Outcome resizeImage(Job<ResizeImage> job) throws InterruptedException {
        Thread.sleep(2 + ThreadLocalRandom.current().nextInt(4));
        return Outcome.complete();
    }

    private static Outcome chargeCard(Job<ChargeCard> job) throws InterruptedException {
        Thread.sleep(1);
        if (job.args().alwaysDeclined()) {
            throw new SimulatedFailure("card of customer " + job.args().customerId() + " declined");
        }
        return Outcome.complete();
    }
}
