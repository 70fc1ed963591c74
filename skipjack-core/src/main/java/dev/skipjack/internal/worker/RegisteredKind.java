package dev.skipjack.internal.worker;

import com.fasterxml.jackson.databind.JavaType;
import dev.skipjack.JobHandler;
import dev.skipjack.KindOptions;
import dev.skipjack.TransactionalJobHandler;

/**
 * A kind this client knows: the type its args deserialize to, its options, and at most one handler
 * (none for a kind that is only enqueued here and run elsewhere).
 */
public record RegisteredKind(String kind, JavaType argsType, KindOptions options,
                             JobHandler<Object> handler, TransactionalJobHandler<Object> transactionalHandler) {

    public boolean isTransactional() {
        return transactionalHandler != null;
    }

    public boolean isRunnable() {
        return handler != null || transactionalHandler != null;
    }
}
