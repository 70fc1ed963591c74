package dev.skipjack.internal.observe;

import org.slf4j.Logger;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Logs what the application's listeners and interceptors throw: the first failure of each as a
 * warning with its stack, later ones at debug level, so one failing on every job does not flood
 * the log. One per fan-out, indexed as its plugins are.
 */
final class PluginFailures {

    private final Logger log;
    /** "listener" or "interceptor", for the message. */
    private final String role;
    private final Object[] plugins;
    /** Per plugin: whether its first failure was logged already. */
    private final AtomicBoolean[] warned;

    PluginFailures(Logger log, String role, Object[] plugins) {
        this.log = log;
        this.role = role;
        this.plugins = plugins;
        this.warned = new AtomicBoolean[plugins.length];
        for (int i = 0; i < warned.length; i++) {
            warned[i] = new AtomicBoolean();
        }
    }

    void failed(int index, String method, Throwable t) {
        String plugin = plugins[index].getClass().getName();
        if (warned[index].compareAndSet(false, true)) {
            log.warn("Skipjack {} {} threw from {}; ignored (further failures of this {} are logged at debug level)",
                    role, plugin, method, role, t);
        } else {
            log.debug("Skipjack {} {} threw from {}; ignored", role, plugin, method, t);
        }
    }
}
