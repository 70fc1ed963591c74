package dev.skipjack.spring;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.UnsupportedDatabaseException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a Skipjack configuration error that stopped the application (a handler bean without a
 * kind, handler beans without a queue, a database Skipjack does not run on) into Boot's
 * "APPLICATION FAILED TO START" report: the core's message as the description, and what to change
 * as the action, instead of a stack trace. Bad {@code skipjack.*} values are reported by Boot's own
 * analyzer for invalid properties.
 */
public class SkipjackFailureAnalyzer extends AbstractFailureAnalyzer<InvalidConfigurationException> {

    /** Creates the analyzer; Boot calls it. */
    public SkipjackFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidConfigurationException cause) {
        return new FailureAnalysis("Skipjack could not be configured: " + cause.getMessage(), action(cause), cause);
    }

    private static String action(InvalidConfigurationException cause) {
        if (cause instanceof UnsupportedDatabaseException) {
            return "Point spring.datasource at a database Skipjack runs on (PostgreSQL 12+, MySQL 8.0+, MariaDB 10.6+,"
                    + " SQLite 3.35+), or set skipjack.enabled=false where Skipjack is not wanted (e.g. tests on H2).";
        }
        if (cause.option().equals("kind")) {
            return "Change the handler bean or kind named above as the description says (handler beans: a"
                    + " @HandlesKind(\"kind-name\") and a concrete args type, one bean per kind; docs/spring-boot.md).";
        }
        return "Fix the Skipjack setting '" + cause.option() + "' named above: a skipjack.* property or a"
                + " SkipjackBuilderCustomizer bean.";
    }
}
