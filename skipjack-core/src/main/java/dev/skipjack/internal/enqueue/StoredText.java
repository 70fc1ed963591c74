package dev.skipjack.internal.enqueue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * Finds the strings in a job's JSON that a backend would refuse or change: U+0000, which
 * PostgreSQL's jsonb refuses (failing the statement, and with it the caller's transaction) while
 * MariaDB and SQLite store it, and lone UTF-16 surrogates, which every JDBC driver here encodes as
 * {@code ?} without a word. Refusing both on every backend keeps one answer for one input.
 *
 * <p>Everything else round-trips (measured on all three backends: controls, U+FFFE/U+FFFF, BOM,
 * line separators, supplementary characters in utf8mb4). The common case costs one scan of the
 * text that finds nothing; only a hit is parsed, to name the field and rule out a false alarm
 * (an escaped backslash followed by {@code u0000}).
 */
public final class StoredText {

    private static final JsonFactory FACTORY = new JsonFactory();

    private StoredText() {
    }

    /** Why a string of the JSON cannot be stored as given, and where: {@code path} is like {@code $.customer.name[2]}. */
    public record Refusal(String path, String reason) {
        public String describe() {
            return path + " " + reason;
        }
    }

    /** The first refused string (value or field name) in {@code json}, or null when all are stored as given. */
    public static Refusal refusal(String json) {
        return mayHoldRefused(json) ? parse(json) : null;
    }

    private static boolean mayHoldRefused(String json) {
        int n = json.length();
        for (int i = 0; i < n; i++) {
            char c = json.charAt(i);
            if (c == '\\') {
                // Jackson writes U+0000 as the escape \u0000, never as the raw char; with
                // ESCAPE_NON_ASCII it writes surrogates as escapes too.
                if (i + 5 < n && json.charAt(i + 1) == 'u') {
                    int escaped = hex(json, i + 2);
                    if (escaped == 0 || Character.isSurrogate((char) escaped)) {
                        return true; // a valid escaped pair is told apart by the parse
                    }
                }
                i++; // the escaped char cannot start another escape
            } else if (c == 0) {
                return true;
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(json.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            }
        }
        return false;
    }

    /** The four hex digits at {@code from} as a number, or -1 when they are not hex digits. */
    private static int hex(String s, int from) {
        int value = 0;
        for (int i = from; i < from + 4; i++) {
            int digit = Character.digit(s.charAt(i), 16);
            if (digit < 0) {
                return -1;
            }
            value = value * 16 + digit;
        }
        return value;
    }

    private static Refusal parse(String json) {
        try (JsonParser p = FACTORY.createParser(json)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME || t == JsonToken.VALUE_STRING) {
                    String reason = reason(p.getText());
                    if (reason != null) {
                        return new Refusal(path(p.getParsingContext()),
                                (t == JsonToken.FIELD_NAME ? "field name " : "") + reason);
                    }
                }
            }
            return null;
        } catch (IOException e) {
            throw new IllegalStateException("Jackson's own output does not parse", e);
        }
    }

    /** Why {@code s} is refused, or null. */
    static String reason(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return "contains U+0000 at index " + i + ", which PostgreSQL cannot store";
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "contains a lone UTF-16 surrogate U+" + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)
                        + " at index " + i + ", which is not text and would be stored as '?'";
            }
        }
        return null;
    }

    /** JSONPath of the current token (a field name's path is its field's). */
    private static String path(JsonStreamContext ctx) {
        StringBuilder b = new StringBuilder();
        append(b, ctx);
        return b.length() == 0 ? "$" : "$" + b;
    }

    private static void append(StringBuilder b, JsonStreamContext ctx) {
        if (ctx == null || ctx.inRoot()) {
            return;
        }
        append(b, ctx.getParent());
        if (ctx.inArray()) {
            b.append('[').append(ctx.getCurrentIndex()).append(']');
        } else if (ctx.getCurrentName() != null) {
            String name = ctx.getCurrentName();
            if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                b.append('.').append(name);
            } else {
                b.append("['").append(printable(name)).append("']");
            }
        }
    }

    /** Field names in a message, with refused and control chars as escapes. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 0x20 || Character.isSurrogate(c) || c == '\'' || c == '\\') {
                b.append(String.format("\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
