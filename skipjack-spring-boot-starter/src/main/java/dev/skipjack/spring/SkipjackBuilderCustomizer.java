package dev.skipjack.spring;

import dev.skipjack.Skipjack;

/**
 * Changes the {@link Skipjack.Builder} the auto-configuration prepared, for what the properties
 * do not say: cron schedules, retry policies, an object mapper, two-phase handlers, a kind declared
 * for another service, {@code Skipjack.KEEP_FOREVER}. Every bean of this type is called, in
 * {@link org.springframework.core.annotation.Order order}, after the properties and the handler
 * beans were applied and before the client is built.
 *
 * <pre>{@code
 * @Bean
 * SkipjackBuilderCustomizer nightlyReport() {
 *     return builder -> builder.cron(CronSchedule.of("nightly", "30 2 * * *", REPORT, new Report()));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface SkipjackBuilderCustomizer {

    /**
     * Changes {@code builder}.
     *
     * @param builder the builder, with the properties and handler beans applied
     */
    void customize(Skipjack.Builder builder);
}
