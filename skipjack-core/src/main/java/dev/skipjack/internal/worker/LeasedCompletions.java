package dev.skipjack.internal.worker;

import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.complete.Completion;

/**
 * The complete step for lease-mode executions: whichever party settles an execution first — its
 * handler returning, the timeout watchdog, the dispatcher handing back a job it could not start,
 * or shutdown — records its outcome here, and the batch completer writes it. Every other party
 * finds the execution settled and records nothing, so a job gets exactly one outcome per attempt.
 */
final class LeasedCompletions {

    private final BatchCompleter<Execution> completer;
    private final OutcomeTranslator translator;
    private final String workerId;

    LeasedCompletions(BatchCompleter<Execution> completer, OutcomeTranslator translator, String workerId) {
        this.completer = completer;
        this.translator = translator;
        this.workerId = workerId;
    }

    /**
     * Records {@code completion} when this caller is the first to settle {@code execution}; true if
     * it was. When an operator cancelled or discarded the running job, any outcome but completion
     * (a failure, such as the interrupt the heartbeat sent, also on the last attempt, a retry, a
     * snooze, the handler's own discard) is recorded as the state the operator asked for; a handler
     * that completed the job completes it.
     */
    boolean settle(Execution execution, Completion completion) {
        if (!execution.settle()) {
            return false;
        }
        String stop = execution.stopRequested();
        completer.submit(execution, stop == null || completion.isCompleted() || stop.equals(completion.state())
                ? completion : translator.stopped(completion, stop, workerId));
        return true;
    }

    /**
     * Records an execution that never ran, or stopped running, as handed back: the job is available
     * again at once and the attempt is not counted against it.
     */
    boolean handBack(Execution execution, String why) {
        if (!execution.settle()) {
            return false;
        }
        String stop = execution.stopRequested();
        if (stop != null && execution.claimed() != null) {
            // An operator asked for it to stop: it ends as asked, not back in the queue (record_outcomes.sql
            // would refuse that, and the job would wait for the rescue, holding its keys).
            completer.submit(execution, translator.stopped(execution.claimed(), stop,
                    "before worker " + workerId + " finished it (" + why + ")", workerId));
            return true;
        }
        completer.submit(execution, translator.handBack(execution.id(), execution.attempt(), workerId,
                "worker " + workerId + " " + why));
        return true;
    }
}
