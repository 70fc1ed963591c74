package dev.skipjack.internal.enqueue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.skipjack.InvalidArgsException;
import dev.skipjack.Unique;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The unique key of a job (F-10), stored in {@code unique_key}: readable, so an operator can tell
 * what a job is unique by. Its parts, separated by {@code |}: the kind; {@code queue=} when per
 * queue; {@code period=} and the period's start when within a period; then {@code key=} and the
 * given key, or {@code args=} and the SHA-256 (base64url) of the compared args in canonical JSON
 * (object fields sorted), so the same args give the same key whatever order their fields were
 * written in. At most 512 characters: kind 128, queue 64, key {@value Unique#MAX_KEY_LENGTH}.
 */
public final class UniqueKeys {

    private final ObjectMapper mapper;
    /** Sorts map entries by key: args read as maps come out in one canonical order. */
    private final ObjectWriter canonical;

    public UniqueKeys(ObjectMapper mapper) {
        this.mapper = mapper;
        this.canonical = mapper.writer().with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    }

    /**
     * The key of a job of {@code kind} on {@code queue} with args {@code argsJson} (as encoded for
     * the insert), due at {@code dueMillis} (epoch milliseconds).
     *
     * @throws InvalidArgsException when the uniqueness compares args fields the args lack
     */
    public String key(Unique unique, String kind, String queue, String argsJson, long dueMillis) {
        StringBuilder key = new StringBuilder(kind);
        if (unique.isPerQueue()) {
            key.append("|queue=").append(queue);
        }
        unique.period().ifPresent(period -> {
            long size = period.toMillis();
            key.append("|period=").append(Instant.ofEpochMilli(Math.floorDiv(dueMillis, size) * size));
        });
        if (unique.key().isPresent()) {
            key.append("|key=").append(unique.key().get());
        } else {
            key.append("|args=").append(sha256(canonicalArgs(unique, kind, argsJson)));
        }
        return key.toString();
    }

    private String canonicalArgs(Unique unique, String kind, String argsJson) {
        try {
            if (unique.argFields().isEmpty()) {
                return canonical.writeValueAsString(mapper.readValue(argsJson, Object.class));
            }
            JsonNode args = mapper.readTree(argsJson);
            Map<String, Object> compared = new LinkedHashMap<>();
            for (String field : unique.argFields()) {
                if (!args.isObject() || !args.has(field)) {
                    throw new InvalidArgsException("args of kind '" + kind + "' have no field '" + field
                            + "', which its Unique.byArgs compares; fields present: " + fieldNames(args));
                }
                compared.put(field, mapper.treeToValue(args.get(field), Object.class));
            }
            return canonical.writeValueAsString(compared);
        } catch (JsonProcessingException e) {
            throw new InvalidArgsException("args of kind '" + kind + "' could not be read back for their unique key: "
                    + e.getMessage(), e);
        }
    }

    private static String fieldNames(JsonNode args) {
        if (!args.isObject()) {
            return "none (the args are JSON " + args.getNodeType().name().toLowerCase() + ")";
        }
        StringBuilder out = new StringBuilder("[");
        args.fieldNames().forEachRemaining(n -> out.append(out.length() > 1 ? ", " : "").append(n));
        return out.append(']').toString();
    }

    /** SHA-256 of the UTF-8 text, base64url without padding (43 characters). */
    public static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
