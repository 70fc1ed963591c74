package dev.skipjack.internal.worker;

import dev.skipjack.internal.kind.RegisteredKind;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skipjack.internal.claim.JobClaimer;
import dev.skipjack.internal.complete.BatchCompleter;
import dev.skipjack.internal.complete.CompletionWriter;
import dev.skipjack.internal.sql.SqlStatements;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import javax.sql.DataSource;

/** What every moving part of a running worker shares. {@code timers} runs handler timeouts only. */
public record WorkerContext(DataSource dataSource, SqlStatements sql, String workerId, Duration lease, ObjectMapper mapper,
                            Map<String, RegisteredKind> kinds, JobClaimer claimer, CompletionWriter writer,
                            BatchCompleter<Execution> completer, ExecutionTracker tracker, OutcomeTranslator translator,
                            ExecutorService jobThreads, ScheduledExecutorService timers) {
}
