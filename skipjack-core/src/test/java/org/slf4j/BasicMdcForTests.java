package org.slf4j;

import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.spi.MDCAdapter;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * slf4j-simple, the tests' logging binding, keeps no MDC (its adapter drops every value). A test
 * that checks what Skipjack puts in the MDC installs SLF4J's own thread-local adapter in MDC's
 * static adapter field (named differently across 2.0.x releases, so found by its type; the
 * suite also runs on SLF4J 2.0.0).
 */
public final class BasicMdcForTests {

    private BasicMdcForTests() {
    }

    public static void install() {
        LoggerFactory.getILoggerFactory(); // let the provider set its adapter first, then replace it
        if (MDC.getMDCAdapter() instanceof BasicMDCAdapter) {
            return;
        }
        try {
            for (Field f : MDC.class.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == MDCAdapter.class) {
                    f.setAccessible(true);
                    f.set(null, new BasicMDCAdapter());
                    return;
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot install SLF4J's basic MDC adapter", e);
        }
        throw new IllegalStateException("org.slf4j.MDC has no static MDCAdapter field in this SLF4J version");
    }
}
