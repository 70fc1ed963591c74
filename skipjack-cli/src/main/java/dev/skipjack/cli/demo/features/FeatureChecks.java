package dev.skipjack.cli.demo.features;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The checks of {@code skipjack demo --features}, and the runner that prints a line per check and
 * the machine-readable RESULT line:
 *
 * <pre>RESULT workload=features unique=ok cron=ok limits=ok ordered=ok workflows=ok</pre>
 *
 * <p>Each check is named {@code name=ok} or {@code name=fail}, in the order of {@link #ORDER}.
 */
public final class FeatureChecks {

    /** The order of the RESULT line, fixed for scripts. */
    public static final List<String> ORDER = List.of("unique", "cron", "limits", "ordered", "workflows");

    private FeatureChecks() {
    }

    /**
     * Every check there is, one per feature: unique jobs (F-10), cron (F-11), global concurrency
     * limits (F-12), ordered keys (F-13) and workflows (F-14). A new feature is one more
     * {@link FeatureCheck} here and its name in {@link #ORDER}.
     */
    public static List<FeatureCheck> registry() {
        return List.of(new UniqueJobsCheck(), new CronCheck(), new LimitsCheck(), new OrderedCheck(), new WorkflowCheck());
    }

    /** Every job kind the checks enqueue. */
    public static Set<String> kinds(List<FeatureCheck> checks) {
        Set<String> kinds = new LinkedHashSet<>();
        checks.forEach(c -> kinds.addAll(c.kinds()));
        return kinds;
    }

    /**
     * Runs the checks one after another in {@link #ORDER}, prints a line per check and the RESULT
     * line; returns true when every check passed. A check that throws has failed, with its error.
     */
    public static boolean run(List<FeatureCheck> checks, FeatureContext context) {
        PrintWriter out = context.out();
        List<FeatureCheck> ordered = new ArrayList<>(checks);
        for (FeatureCheck check : ordered) {
            if (!ORDER.contains(check.name())) {
                throw new IllegalArgumentException("feature check " + check.name() + " is not one of " + ORDER);
            }
        }
        ordered.sort(Comparator.comparingInt(c -> ORDER.indexOf(c.name())));
        StringBuilder result = new StringBuilder("RESULT workload=features");
        boolean allPassed = true;
        for (FeatureCheck check : ordered) {
            long start = System.nanoTime();
            CheckResult verdict;
            try {
                verdict = check.run(context);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                verdict = CheckResult.of(false, check.name() + ": interrupted");
            } catch (Exception e) {
                verdict = CheckResult.of(false, check.name() + ": failed with " + e);
            }
            out.printf(Locale.ROOT, "  %s %s (%.1f s)%n", verdict.passed() ? "[ok]    " : "[FAILED]", verdict.description(),
                    (System.nanoTime() - start) / 1e9);
            out.flush();
            allPassed &= verdict.passed();
            result.append(' ').append(check.name()).append(verdict.passed() ? "=ok" : "=fail");
        }
        out.println(result);
        out.flush();
        return allPassed;
    }
}
