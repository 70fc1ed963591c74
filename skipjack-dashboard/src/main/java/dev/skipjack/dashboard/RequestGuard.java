package dev.skipjack.dashboard;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.security.BasicAuthCredentials;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Runs before every request: security headers, authentication, and for state-changing requests
 * read-only mode, a same-origin check and the CSRF token. A request it refuses gets its status
 * and a short plain-text reason, and no handler runs.
 */
final class RequestGuard {

    /** Header that carries the CSRF token; a cross-site form or image cannot set a custom header. */
    static final String CSRF_HEADER = "X-Skipjack-CSRF";

    private final String user;
    private final String password;
    private final String csrfToken;
    private final boolean readOnly;

    RequestGuard(String user, String password, String csrfToken, boolean readOnly) {
        this.user = user;
        this.password = password;
        this.csrfToken = csrfToken;
        this.readOnly = readOnly;
    }

    void check(Context ctx) {
        ctx.header("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
                + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Cache-Control", "no-store");
        if (user == null && !loopbackHost(ctx.header("Host"))) {
            // Without authentication the server listens on loopback only; a Host naming anything
            // else is a DNS-rebinding page trying to reach it as its own origin.
            refuse(ctx, 403, "unexpected Host header");
            return;
        }
        if (user != null && !authenticated(ctx)) {
            ctx.header("WWW-Authenticate", "Basic realm=\"Skipjack\", charset=\"UTF-8\"");
            refuse(ctx, 401, "authentication required");
            return;
        }
        if (ctx.method() == HandlerType.GET || ctx.method() == HandlerType.HEAD) {
            return;
        }
        if (readOnly) {
            refuse(ctx, 403, "this dashboard is read-only");
            return;
        }
        if (!sameOrigin(ctx)) {
            refuse(ctx, 403, "cross-site request refused");
            return;
        }
        String token = ctx.header(CSRF_HEADER);
        if (token == null || !constantTimeEquals(token, csrfToken)) {
            refuse(ctx, 403, "missing or wrong CSRF token");
        }
    }

    private boolean authenticated(Context ctx) {
        BasicAuthCredentials c;
        try {
            c = ctx.basicAuthCredentials();
        } catch (RuntimeException malformed) {
            return false;
        }
        // Both compared, always, so timing tells nothing about which one was wrong.
        return c != null & constantTimeEquals(c == null ? "" : c.getUsername(), user)
                & constantTimeEquals(c == null ? "" : c.getPassword(), password);
    }

    /**
     * Browsers send {@code Origin} on every cross-origin POST and on same-origin ones too; when it
     * is present it must name this server. {@code Sec-Fetch-Site}, when present, must not say
     * cross-site. Requests without either (curl, scripts) still need the CSRF token.
     */
    private static boolean sameOrigin(Context ctx) {
        String fetchSite = ctx.header("Sec-Fetch-Site");
        if (fetchSite != null && !(fetchSite.equals("same-origin") || fetchSite.equals("none"))) {
            return false;
        }
        String origin = ctx.header("Origin");
        if (origin == null) {
            return true;
        }
        try {
            URI o = URI.create(origin);
            String host = ctx.header("Host");
            return host != null && o.getAuthority() != null && o.getAuthority().equalsIgnoreCase(host);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean loopbackHost(String hostHeader) {
        if (hostHeader == null) {
            return false;
        }
        String host = hostHeader;
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            host = end < 0 ? host : host.substring(1, end);
        } else if (host.indexOf(':') >= 0) {
            host = host.substring(0, host.indexOf(':'));
        }
        host = host.toLowerCase(java.util.Locale.ROOT);
        return host.equals("localhost") || host.equals("::1") || host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    }

    private static boolean constantTimeEquals(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static void refuse(Context ctx, int status, String reason) {
        ctx.status(status).contentType("text/plain; charset=utf-8").result(reason + "\n");
        ctx.skipRemainingHandlers();
    }
}
