package dev.skipjack.internal.kind;

import com.fasterxml.jackson.databind.JavaType;
import dev.skipjack.KindOptions;

/**
 * A kind this client knows: the type its args deserialize to, its options, and how its jobs run
 * (including not at all here, for a kind only enqueued by this client).
 */
public record RegisteredKind(String kind, JavaType argsType, KindOptions options, ExecutionMode mode) {
}
