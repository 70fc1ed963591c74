package dev.skipjack.cli.testhandlers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skipjack.JobKind;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;

import java.util.function.Consumer;

/**
 * A handler jar as a user would write one for {@code skipjack worker --register}: {@code charge}
 * reports progress and a log line, fails its first attempt with a stack trace and succeeds on any
 * later one.
 */
public final class ChargeHandlers implements Consumer<Skipjack.Builder> {

    @Override
    public void accept(Skipjack.Builder builder) {
        builder.handler(JobKind.of("charge", JsonNode.class), KindOptions.defaults().withMaxAttempts(1), job -> {
            job.progress(50, "asking the bank");
            job.log("charging order " + job.args().path("order").asInt() + " (attempt " + job.attempt() + ")");
            if (job.attempt() == 1) {
                throw new IllegalStateException("card declined for order " + job.args().path("order").asInt());
            }
            return Outcome.complete();
        });
    }
}
