package dev.skipjack.spring;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.JobState;
import dev.skipjack.KindOptions;
import dev.skipjack.Skipjack;
import dev.skipjack.SkipjackListener;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

import javax.sql.DataSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Configures Skipjack from the application's {@link DataSource} and the {@code skipjack.*}
 * properties ({@link SkipjackProperties}): a {@link Skipjack} client with every
 * {@link HandlesKind handler bean} registered, migrated unless told otherwise; a
 * {@link SkipjackTemplate} that enqueues in the caller's Spring transaction; and
 * {@link SkipjackWorkers}, which run the workers on the context's lifecycle. Each bean backs off
 * when the application defines its own. Off with {@code skipjack.enabled=false}.
 */
// By name: Boot 3 has these in spring-boot-autoconfigure, Boot 4 in spring-boot-jdbc; only one pair exists.
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration"})
@ConditionalOnClass(Skipjack.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "skipjack", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(SkipjackProperties.class)
public class SkipjackAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public SkipjackAutoConfiguration() {
    }

    /**
     * The client: built on {@code dataSource} with the properties, the handler beans and the
     * customizers, and migrated when {@code skipjack.migrate-on-start} is true (the default).
     * Its workers are started by {@link SkipjackWorkers}, not here.
     *
     * @param dataSource  the application's DataSource
     * @param properties  the {@code skipjack.*} properties
     * @param beanFactory where the handler beans are found
     * @param customizers changes applied last
     * @param listeners   every {@link SkipjackListener} bean, registered in their order (the
     *                    metrics of {@code skipjack-micrometer} are one)
     * @return the client
     */
    @Bean
    @ConditionalOnMissingBean
    public Skipjack skipjack(DataSource dataSource, SkipjackProperties properties,
                             ConfigurableListableBeanFactory beanFactory,
                             ObjectProvider<SkipjackBuilderCustomizer> customizers,
                             ObjectProvider<SkipjackListener> listeners) {
        HandlerBeans handlers = HandlerBeans.of(beanFactory);
        checkKindsHaveHandlers(properties, handlers);
        Skipjack.Builder builder = Skipjack.builder(dataSource);
        applyProperties(builder, properties);
        handlers.registerOn(builder, beanFactory, kindOptions(properties));
        listeners.orderedStream().forEach(builder::listener);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        Skipjack skipjack = builder.build();
        if (properties.isMigrateOnStart()) {
            skipjack.migrate();
        }
        return skipjack;
    }

    /**
     * Enqueues in the caller's Spring transaction when there is one.
     *
     * @param skipjack   the client
     * @param dataSource the DataSource whose transactions are joined
     * @return the template
     */
    @Bean
    @ConditionalOnMissingBean
    public SkipjackTemplate skipjackTemplate(Skipjack skipjack, DataSource dataSource) {
        return new SkipjackTemplate(skipjack, dataSource);
    }

    /**
     * Starts the workers when the context is ready and stops them gracefully when it closes,
     * unless the application only enqueues ({@code skipjack.worker-enabled=false}, or no queue
     * and no handler bean).
     *
     * @param skipjack    the client
     * @param properties  the {@code skipjack.*} properties
     * @param beanFactory where the handler beans are found, to name them if no queue runs them
     * @return the workers' lifecycle
     */
    @Bean
    @ConditionalOnMissingBean
    public SkipjackWorkers skipjackWorkers(Skipjack skipjack, SkipjackProperties properties,
                                           ConfigurableListableBeanFactory beanFactory) {
        List<String> handlerBeans = HandlerBeans.of(beanFactory).beans().stream()
                .map(b -> "'" + b.beanName() + "' (kind '" + b.kind().name() + "')").toList();
        return new SkipjackWorkers(skipjack, properties.isWorkerEnabled(), handlerBeans);
    }

    private static void checkKindsHaveHandlers(SkipjackProperties properties, HandlerBeans handlers) {
        for (String kind : properties.getKinds().keySet()) {
            if (handlers.beans().stream().noneMatch(b -> b.kind().name().equals(kind))) {
                throw new InvalidConfigurationPropertyValueException("skipjack.kinds." + kind, kind,
                        "no handler bean has @HandlesKind(\"" + kind + "\"); handler beans here handle "
                                + handlers.beans().stream().map(b -> b.kind().name()).toList());
            }
        }
    }

    private static Map<String, KindOptions> kindOptions(SkipjackProperties properties) {
        Map<String, KindOptions> options = new LinkedHashMap<>();
        properties.getKinds().forEach((kind, settings) -> {
            KindOptions o = KindOptions.defaults();
            if (settings.getTimeout() != null) {
                o = set("kinds." + kind + ".timeout", settings.getTimeout(), o::withTimeout);
            }
            if (settings.getMaxAttempts() != null) {
                o = set("kinds." + kind + ".max-attempts", settings.getMaxAttempts(), o::withMaxAttempts);
            }
            options.put(kind, o);
        });
        return options;
    }

    private static void applyProperties(Skipjack.Builder builder, SkipjackProperties p) {
        apply("schema", p.getSchema(), builder::schema);
        apply("table-prefix", p.getTablePrefix(), builder::tablePrefix);
        p.getQueues().forEach((name, concurrency) -> apply("queues." + name, concurrency,
                c -> builder.queue(name, c)));
        apply("poll-interval", p.getPollInterval(), builder::pollInterval);
        apply("lease", p.getLease(), builder::lease);
        apply("shutdown-timeout", p.getShutdownTimeout(), builder::shutdownTimeout);
        apply("rescue-interval", p.getRescueInterval(), builder::rescueInterval);
        apply("promote-interval", p.getPromoteInterval(), builder::promoteInterval);
        apply("prune-interval", p.getPruneInterval(), builder::pruneInterval);
        apply("cron-interval", p.getCronInterval(), builder::cronInterval);
        apply("unserved-queue-threshold", p.getUnservedQueueThreshold(), builder::unservedQueueThreshold);
        builder.listenNotify(p.isListenNotify());
        apply("worker-id", p.getWorkerId(), builder::workerId);
        apply("max-args-bytes", p.getMaxArgsBytes(), builder::maxArgsBytes);
        apply("retention.completed", p.getRetention().getCompleted(), d -> builder.retention(JobState.COMPLETED, d));
        apply("retention.cancelled", p.getRetention().getCancelled(), d -> builder.retention(JobState.CANCELLED, d));
        apply("retention.discarded", p.getRetention().getDiscarded(), d -> builder.retention(JobState.DISCARDED, d));
    }

    /** Calls {@code setter} with a set property; the builder's refusal becomes an error naming the property. */
    private static <V> void apply(String property, V value, Consumer<V> setter) {
        if (value != null) {
            set(property, value, v -> {
                setter.accept(v);
                return null;
            });
        }
    }

    private static <V, R> R set(String property, V value, Function<V, R> setter) {
        try {
            return setter.apply(value);
        } catch (InvalidConfigurationException e) {
            // Boot's failure analyzer prints this as "Invalid value ... for configuration property skipjack.<property>".
            throw new InvalidConfigurationPropertyValueException("skipjack." + property, value, e.getMessage());
        }
    }
}
