package dev.skipjack.internal.enqueue;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;
import java.io.Writer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a job's args into the JSON stored with it, and refuses args that would never read back as
 * the kind's args type, so a job that can never run is refused at enqueue instead of discarded
 * later.
 *
 * <p>Reading back is what makes enqueue cost more than the insert, so it is done only where it can
 * tell something: an instance of exactly the kind's (non-generic) args type is read back once per
 * type. What that proves, a usable creator and matching property names, belongs to the type, not
 * to the values: any instance of it was built by that creator. Other objects (maps, trees,
 * subclasses) are read back every time, because their shape can differ from one to the next.
 * The values do matter for one thing: the parser's limits ({@link StreamReadConstraints}: a number
 * of over 1,000 digits, a name of over 50,000 characters, nesting over 1,000 deep, by default),
 * which a worker's read applies and the write does not. So an own-type text long enough to pass
 * one of them is run through the parser, tokens only, without binding; shorter texts cannot.
 */
public final class ArgsEncoder {

    private final ObjectWriter writer;
    private final ObjectMapper mapper;
    private final Map<JavaType, ObjectReader> readers = new ConcurrentHashMap<>();
    private final Set<JavaType> readBackOnce = ConcurrentHashMap.newKeySet();

    /** Args texts of at most this many characters cannot pass any of the mapper's parser limits. */
    private final long longestWithinLimits;

    public ArgsEncoder(ObjectMapper mapper) {
        this.mapper = mapper;
        this.writer = mapper.writer();
        this.longestWithinLimits = longestWithinLimits(mapper.getFactory().streamReadConstraints());
    }

    /**
     * Passing a limit of n takes more than n characters (digits, name characters, opening
     * brackets, tokens), so a text of at most the smallest limit passes none.
     */
    static long longestWithinLimits(StreamReadConstraints limits) {
        long longest = Math.min(limits.getMaxNumberLength(), Math.min(limits.getMaxNestingDepth(), limits.getMaxStringLength()));
        // Names, documents (Jackson 2.16) and tokens (2.18) are limited too on the newer versions,
        // read by name: the core runs on Jackson 2.15 as well.
        for (String getter : new String[] {"getMaxNameLength", "getMaxDocumentLength", "getMaxTokenCount"}) {
            try {
                long limit = ((Number) StreamReadConstraints.class.getMethod(getter).invoke(limits)).longValue();
                if (limit > 0) {
                    longest = Math.min(longest, limit);
                }
            } catch (ReflectiveOperationException olderJackson) {
                // not limited on this version
            }
        }
        return longest;
    }

    /**
     * The JSON text of {@code args} ({@code {}} for null), given up as soon as it passes
     * {@code maxChars} chars: an oversized args object costs at most that much text, not all of it.
     *
     * @throws TooLarge               past {@code maxChars} chars (so past as many UTF-8 bytes)
     * @throws JsonProcessingException when they do not serialize
     */
    public String write(Object args, int maxChars) throws JsonProcessingException, TooLarge {
        return batch(maxChars).write(args);
    }

    /**
     * A writer of many args objects in turn, each bounded by {@code maxChars} chars as
     * {@link #write(Object, int)}: for a bulk enqueue, which would otherwise pay Jackson's setup of
     * a generator (its contexts and buffers) for every job.
     */
    public Batch batch(int maxChars) {
        return new Batch(maxChars);
    }

    /**
     * Writes args objects one after the other through one generator into one buffer, and cuts each
     * one's text out of it. Not thread-safe: one batch per enqueue call.
     */
    public final class Batch {
        private final BoundedWriter out;
        /** Null until the first write, and again after a failed one (its state is then unknown). */
        private JsonGenerator generator;

        private Batch(int maxChars) {
            this.out = new BoundedWriter(maxChars);
        }

        /** As {@link ArgsEncoder#write(Object, int)}. */
        public String write(Object args) throws JsonProcessingException, TooLarge {
            out.text.setLength(0);
            out.exceeded = false;
            try {
                if (generator == null) {
                    generator = writer.createGenerator(out);
                }
                writer.writeValue(generator, args == null ? Map.of() : args);
                generator.flush();
            } catch (IOException | RuntimeException e) {
                generator = null;
                if (out.exceeded) {
                    throw new TooLarge();
                }
                if (e instanceof JsonProcessingException jpe) {
                    throw jpe;
                }
                if (e instanceof RuntimeException re) {
                    throw re;
                }
                throw new IllegalStateException("writing to memory failed", e);
            }
            return out.text();
        }
    }

    /**
     * Refuses args that would not read back as {@code argsType} from {@code json}, their text.
     *
     * @throws IllegalArgumentException when they do not
     * @throws JsonProcessingException  when the text does not parse as that type
     */
    public void checkReadsBack(Object args, String json, JavaType argsType) throws JsonProcessingException {
        boolean ownType = args != null && args.getClass() == argsType.getRawClass() && !argsType.hasGenericTypes();
        if (ownType && readBackOnce.contains(argsType)) {
            if (json.length() > longestWithinLimits) {
                checkParses(json);
            }
            return;
        }
        if (reader(argsType).readValue(json) == null) {
            throw new IllegalArgumentException("args serialize to JSON null");
        }
        if (ownType) {
            readBackOnce.add(argsType);
        }
    }

    /**
     * Runs {@code json} through the mapper's parser, as a worker's read does, without binding it:
     * throws what the parser's limits say. A string's length is checked where its text is read.
     */
    private void checkParses(String json) throws JsonProcessingException {
        try (JsonParser parser = mapper.getFactory().createParser(json)) {
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                if (token == JsonToken.VALUE_STRING) {
                    parser.getTextLength();
                }
            }
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("reading from memory failed", e);
        }
    }

    /** The args' text passed the limit; how far is unknown, since writing stopped there. */
    public static final class TooLarge extends Exception {
        TooLarge() {
            super(null, null, false, false);
        }
    }

    private static final class BoundedWriter extends Writer {
        private final StringBuilder text = new StringBuilder(64);
        private final int max;
        private boolean exceeded;

        BoundedWriter(int max) {
            this.max = max;
        }

        /** The value's text; whitespace before it (a root value separator) was left out. */
        String text() {
            return text.toString();
        }

        // A generator writes a separator (a space, or a pretty printer's) before every root value
        // but the first: it is no part of the value, so it is neither kept nor counted.

        private void room(int len) throws IOException {
            if (text.length() + len > max) {
                exceeded = true;
                throw new IOException("over " + max + " chars");
            }
        }

        @Override
        public void write(char[] chars, int off, int len) throws IOException {
            int end = off + len;
            while (text.length() == 0 && off < end && Character.isWhitespace(chars[off])) {
                off++;
            }
            room(end - off);
            text.append(chars, off, end - off);
        }

        @Override
        public void write(String s, int off, int len) throws IOException {
            int end = off + len;
            while (text.length() == 0 && off < end && Character.isWhitespace(s.charAt(off))) {
                off++;
            }
            room(end - off);
            text.append(s, off, end);
        }

        @Override
        public void write(int c) throws IOException {
            if (text.length() == 0 && Character.isWhitespace(c)) {
                return;
            }
            room(1);
            text.append((char) c);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private ObjectReader reader(JavaType type) {
        return readers.computeIfAbsent(type, mapper::readerFor);
    }
}
