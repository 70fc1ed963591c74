package dev.skipjack.dashboard;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.ShardedAdmin;
import dev.skipjack.SkipjackAdmin;
import io.javalin.Javalin;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * The Skipjack web dashboard (F-26): queues, states, throughput, job lists and detail, retry,
 * cancel and delete, queue pause and resume, served by an embedded Javalin (Jetty 12) server.
 *
 * <pre>{@code
 * SkipjackDashboard dashboard = SkipjackDashboard.builder(skipjack.admin())
 *         .host("0.0.0.0").port(7070).basicAuth("ops", System.getenv("DASHBOARD_PASSWORD"))
 *         .build().start();
 * }</pre>
 *
 * Over several databases ({@link dev.skipjack.ShardedSkipjack}), give it the composite:
 * {@code SkipjackDashboard.builder(sharded.admin())}. The overview then sums every shard and breaks
 * the totals down per shard, every job shows its shard, and an action on a job goes to its shard.
 *
 * Security: HTTP basic authentication is required unless the server listens on a loopback
 * address only and no credentials were set; with no credentials on any other address, a random
 * password is generated ({@link #generatedPassword()}). Every state-changing request needs the
 * page's CSRF token in a header and a same-origin {@code Origin}, so another site cannot act
 * with the browser's stored credentials. Job content is only ever inserted into the page as
 * text. Read-only mode refuses every state-changing request.
 */
public final class SkipjackDashboard implements AutoCloseable {

    /** Port when none is set. */
    public static final int DEFAULT_PORT = 7070;
    /** User name of the generated credentials. */
    public static final String GENERATED_USER = "admin";

    private final Builder settings;
    private final String user;
    private final String password;
    private final String generatedPassword;
    private final String csrfToken;
    private Javalin server;

    private SkipjackDashboard(Builder b) {
        this.settings = b;
        boolean loopback = isLoopback(b.host);
        if (b.user != null) {
            this.user = b.user;
            this.password = b.password;
            this.generatedPassword = null;
        } else if (loopback) {
            this.user = null;
            this.password = null;
            this.generatedPassword = null;
        } else {
            this.user = GENERATED_USER;
            this.password = randomToken(18);
            this.generatedPassword = this.password;
        }
        this.csrfToken = randomToken(32);
    }

    /** A dashboard on one database. */
    public static Builder builder(SkipjackAdmin admin) {
        return new Builder(ShardedAdmin.of(Map.of(SINGLE_SHARD, Objects.requireNonNull(admin, "admin"))));
    }

    /** A dashboard over the shards of {@code admin} (see {@link ShardedAdmin}). */
    public static Builder builder(ShardedAdmin admin) {
        return new Builder(admin);
    }

    /** The name of the one shard a single database is (never shown: with one shard, ids are bare). */
    private static final String SINGLE_SHARD = "default";

    /** Starts serving; returns this. */
    public synchronized SkipjackDashboard start() {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        DashboardRoutes routes = new DashboardRoutes(settings.admin, new RequestGuard(user, password, csrfToken,
                settings.readOnly), csrfToken, settings.readOnly);
        server = Javalin.create(config -> {
            config.jetty.host = settings.host;
            config.jetty.port = settings.port;
            config.startup.showJavalinBanner = false;
            routes.register(config.routes);
        }).start();
        return this;
    }

    /** The port it listens on (useful with port 0). */
    public int port() {
        return server.port();
    }

    /** The address to open in a browser. */
    public String url() {
        String host = settings.host.equals("0.0.0.0") || settings.host.equals("::") ? "localhost" : settings.host;
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + "/";
    }

    /** Whether requests must authenticate. */
    public boolean authenticationRequired() {
        return user != null;
    }

    /** The password generated because none was set on a non-loopback address, or null. */
    public String generatedPassword() {
        return generatedPassword;
    }

    public boolean readOnly() {
        return settings.readOnly;
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    static boolean isLoopback(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String randomToken(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** Dashboard settings; everything but the admin has a default. */
    public static final class Builder {
        private final ShardedAdmin admin;
        private String host = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private String user;
        private String password;
        private boolean readOnly;

        private Builder(ShardedAdmin admin) {
            this.admin = Objects.requireNonNull(admin, "admin");
        }

        /**
         * Address to listen on (default 127.0.0.1; authentication is required on any other).
         *
         * @throws InvalidConfigurationException (option {@code host}) when blank
         */
        public Builder host(String host) {
            if (host == null || host.isBlank()) {
                throw new InvalidConfigurationException("host", "host must not be blank");
            }
            this.host = host;
            return this;
        }

        /**
         * Port to listen on (default 7070; 0 picks a free one).
         *
         * @throws InvalidConfigurationException (option {@code port}) outside 0-65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new InvalidConfigurationException("port", "port must be 0-65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Requires HTTP basic authentication with these credentials, wherever the server listens.
         *
         * @throws InvalidConfigurationException (option {@code basicAuth}) for an empty user, a user
         *                                       with ':' or a password under 8 characters
         */
        public Builder basicAuth(String user, String password) {
            if (user == null || user.isEmpty() || user.contains(":")) {
                throw new InvalidConfigurationException("basicAuth", "basicAuth: " + "user must be non-empty and contain no ':'");
            }
            if (password == null || password.length() < 8) {
                throw new InvalidConfigurationException("basicAuth", "basicAuth: " + "password must be at least 8 characters");
            }
            this.user = user;
            this.password = password;
            return this;
        }

        /** Shows everything, changes nothing: retry, cancel, delete, pause and resume are refused. */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        public SkipjackDashboard build() {
            return new SkipjackDashboard(this);
        }
    }
}
