package dev.skipjack.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations as people type them: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}, or ISO-8601. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        Matcher m = SHORT.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration: use e.g. 500ms, 30s, 5m, 2h, 7d");
        }
    }
}
