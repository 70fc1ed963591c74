package dev.skipjack.testing;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.Map;

/**
 * Whether stored args contain the expected ones (see {@link JobMatcher}): every field of an
 * expected object is in the stored object with a matching value; arrays match element by element
 * and in length; numbers by value, so an {@code int} 5 matches a stored {@code 5.0} or a long.
 */
final class ArgsMatch {

    private ArgsMatch() {
    }

    static boolean contains(JsonNode stored, JsonNode expected) {
        if (expected.isObject()) {
            if (!stored.isObject()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                JsonNode value = stored.get(field.getKey());
                if (value == null || !contains(value, field.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (expected.isArray()) {
            if (!stored.isArray() || stored.size() != expected.size()) {
                return false;
            }
            for (int i = 0; i < expected.size(); i++) {
                if (!contains(stored.get(i), expected.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (expected.isNumber()) {
            return stored.isNumber() && stored.decimalValue().compareTo(expected.decimalValue()) == 0;
        }
        return stored.equals(expected);
    }
}
