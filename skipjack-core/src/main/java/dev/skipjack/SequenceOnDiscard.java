package dev.skipjack;

/**
 * What a discarded job does to its sequence key ({@link EnqueueOptions#withSequenceKey(String, SequenceOnDiscard)},
 * F-13). A failing job of a sequence holds its key through its retries either way; this decides
 * what happens once it is out of attempts or discarded by its handler or an operator.
 */
public enum SequenceOnDiscard {
    /** The next job of the key runs: the discarded one is given up, the order of the rest is kept. */
    CONTINUE,
    /**
     * The key stays blocked by the discarded job until an operator retries it (it runs again, then
     * the rest follow) or deletes it ({@code SkipjackAdmin.retry}/{@code delete}, the CLI, the
     * dashboard). For sequences whose later jobs would be wrong without the earlier one.
     */
    BLOCK
}
