package dev.skipjack.internal.enqueue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;

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
 */
public final class ArgsEncoder {

    private final ObjectWriter writer;
    private final ObjectMapper mapper;
    private final Map<JavaType, ObjectReader> readers = new ConcurrentHashMap<>();
    private final Set<JavaType> readBackOnce = ConcurrentHashMap.newKeySet();

    public ArgsEncoder(ObjectMapper mapper) {
        this.mapper = mapper;
        this.writer = mapper.writer();
    }

    /**
     * The JSON text of {@code args} ({@code {}} for null).
     *
     * @throws IllegalArgumentException when the args do not read back as {@code argsType}
     * @throws JsonProcessingException  when they do not serialize
     */
    public String encode(Object args, JavaType argsType) throws JsonProcessingException {
        String json = writer.writeValueAsString(args == null ? Map.of() : args);
        boolean ownType = args != null && args.getClass() == argsType.getRawClass() && !argsType.hasGenericTypes();
        if (ownType && readBackOnce.contains(argsType)) {
            return json;
        }
        if (reader(argsType).readValue(json) == null) {
            throw new IllegalArgumentException("args serialize to JSON null");
        }
        if (ownType) {
            readBackOnce.add(argsType);
        }
        return json;
    }

    private ObjectReader reader(JavaType type) {
        return readers.computeIfAbsent(type, mapper::readerFor);
    }
}
