package dev.skipjack.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the job kind a handler bean runs. Put it on a class implementing
 * {@link dev.skipjack.JobHandler} or {@link dev.skipjack.TransactionalJobHandler}, or on the
 * {@code @Bean} method that returns one; the kind's args type is the handler's type argument:
 *
 * <pre>{@code
 * @Component
 * @HandlesKind("send-email")
 * class SendEmailHandler implements JobHandler<SendEmail> {
 *     public Outcome handle(Job<SendEmail> job) { ... }
 * }
 *
 * @Bean
 * @HandlesKind("transfer")
 * TransactionalJobHandler<Transfer> transferHandler(Ledger ledger) {
 *     return (job, tx) -> { ledger.move(tx, job.args()); return Outcome.complete(); };
 * }
 * }</pre>
 *
 * The auto-configuration registers every such bean with the Skipjack client. A handler bean
 * without this annotation, or whose args type cannot be read from its declaration (a raw
 * {@code JobHandler}, a type variable), fails the context's start with a message naming the bean.
 * Options of the kind come from {@code skipjack.kinds.<name>.*} ({@link SkipjackProperties}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface HandlesKind {

    /**
     * The kind's name, as stored in each job's {@code kind} column and as the producer's
     * {@code JobKind.of(name, ArgsType.class)} names it.
     *
     * @return the kind name
     */
    String value();
}
