package dev.skipjack.support;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What Skipjack logs while it is open. The test binding, slf4j-simple, writes to whatever
 * {@code System.err} is at the time of each message, so this tees it: the output still reaches the
 * test report, and the test can read the lines back.
 */
public final class LogCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    public LogCapture() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** The lines logged so far. */
    public List<String> lines() {
        synchronized (captured) {
            return Arrays.asList(captured.toString(StandardCharsets.UTF_8).split("\\R"));
        }
    }

    /** The lines logged so far that contain {@code text}. */
    public List<String> linesContaining(String text) {
        return lines().stream().filter(l -> l.contains(text)).toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
