package dev.skipjack;

import dev.skipjack.InvalidWorkflowException.Problem;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Jobs that depend on each other (F-14): each step is a job, named within the workflow, that runs
 * only once every step it depends on has completed. Fan-out is several steps depending on one;
 * fan-in is one step depending on several. Immutable: each method returns a new workflow.
 *
 * <pre>{@code
 * Workflow nightly = Workflow.named("nightly")
 *         .add("extract", JobRequest.of(EXTRACT, new Extract("2026-11-24")))
 *         .add("load-eu", JobRequest.of(LOAD, new Load("eu")), dependsOn("extract"))
 *         .add("load-us", JobRequest.of(LOAD, new Load("us")), dependsOn("extract"))
 *         .add("report", JobRequest.of(REPORT, new Report()), dependsOn("load-eu", "load-us"));
 * EnqueuedWorkflow w = skipjack.enqueueWorkflow(nightly);
 * }</pre>
 *
 * A step may name steps added after it; the whole shape is checked when it is enqueued (unknown
 * steps, cycles). What happens to the dependents of a step that fails is the workflow's
 * {@link WorkflowPolicy} ({@link WorkflowPolicy#CANCEL} unless {@link #withPolicy} says otherwise).
 */
public final class Workflow {

    /** Most steps one workflow may have. */
    public static final int MAX_STEPS = 1_000;
    /** Workflow and step names: as kind names, 1-128 of letters, digits, '_', '-', '.', ':', starting with a letter. */
    public static final Pattern NAME = Limits.KIND_NAME;

    /** The steps a step depends on; see {@link #dependsOn(String...)}. */
    public static final class DependsOn {
        private final List<String> steps;

        private DependsOn(List<String> steps) {
            this.steps = steps;
        }

        public List<String> steps() {
            return steps;
        }

        @Override
        public String toString() {
            return "dependsOn" + steps;
        }
    }

    /** One step as added: its job and the steps it depends on. */
    record Step(String name, JobRequest request, List<String> parents) {
    }

    private final String name;
    private final WorkflowPolicy policy;
    private final Map<String, Step> steps;

    private Workflow(String name, WorkflowPolicy policy, Map<String, Step> steps) {
        this.name = name;
        this.policy = policy;
        this.steps = steps;
    }

    /**
     * An empty workflow called {@code name} (for people: names need not be unique), with the
     * {@link WorkflowPolicy#CANCEL} policy.
     *
     * @throws InvalidWorkflowException ({@link Problem#INVALID_NAME}) for a malformed name
     */
    public static Workflow named(String name) {
        requireName(name, "workflow");
        return new Workflow(name, WorkflowPolicy.CANCEL, Collections.emptyMap());
    }

    /** The steps a step depends on: {@code .add("report", request, dependsOn("load-eu", "load-us"))}. */
    public static DependsOn dependsOn(String... steps) {
        Objects.requireNonNull(steps, "steps");
        List<String> list = List.of(steps); // no nulls
        if (new LinkedHashSet<>(list).size() != list.size()) {
            throw new InvalidWorkflowException(Problem.DUPLICATE_STEP, list,
                    "dependsOn names a step twice: " + list);
        }
        return new DependsOn(list);
    }

    /** What happens to the dependents of a step that ends without completing (default {@link WorkflowPolicy#CANCEL}). */
    public Workflow withPolicy(WorkflowPolicy policy) {
        return new Workflow(name, Objects.requireNonNull(policy, "policy"), steps);
    }

    /**
     * A step that depends on nothing: it is enqueued as the request says (available, or scheduled
     * for its {@code runAt}/{@code delay}).
     *
     * @throws InvalidWorkflowException for a malformed or repeated step name, or one step too many
     */
    public Workflow add(String step, JobRequest request) {
        return add(step, request, new DependsOn(List.of()));
    }

    /**
     * A step that runs once every step in {@code parents} has completed (and not before its own
     * {@code runAt}/{@code delay}, if the request has one). The parents may be added later.
     *
     * @throws InvalidWorkflowException for a malformed or repeated step name, one step too many, or a
     *                                  step that depends on itself
     */
    public Workflow add(String step, JobRequest request, DependsOn parents) {
        requireName(step, "step");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(parents, "parents");
        if (steps.containsKey(step)) {
            throw new InvalidWorkflowException(Problem.DUPLICATE_STEP, List.of(step),
                    "workflow '" + name + "' already has a step '" + step + "': step names are unique within a workflow");
        }
        if (steps.size() >= MAX_STEPS) {
            throw new InvalidWorkflowException(Problem.TOO_MANY_STEPS, List.of(step),
                    "workflow '" + name + "' would have more than " + MAX_STEPS + " steps with '" + step
                            + "': split the work into several workflows, or let one step enqueue many jobs");
        }
        if (parents.steps().contains(step)) {
            throw new InvalidWorkflowException(Problem.CYCLE, List.of(step, step),
                    "step '" + step + "' of workflow '" + name + "' depends on itself, so it could never run");
        }
        for (String parent : parents.steps()) {
            requireName(parent, "step");
        }
        Map<String, Step> more = new LinkedHashMap<>(steps);
        more.put(step, new Step(step, request, parents.steps()));
        return new Workflow(name, policy, Collections.unmodifiableMap(more));
    }

    public String name() {
        return name;
    }

    public WorkflowPolicy policy() {
        return policy;
    }

    /** Step names in the order they were added. */
    public List<String> steps() {
        return List.copyOf(steps.keySet());
    }

    /** The steps {@code step} depends on; {@link IllegalArgumentException} for an unknown step. */
    public List<String> parentsOf(String step) {
        Step s = steps.get(step);
        if (s == null) {
            throw new IllegalArgumentException("workflow '" + name + "' has no step " + Limits.quote(step));
        }
        return s.parents();
    }

    /** The job request of {@code step}; {@link IllegalArgumentException} for an unknown step. */
    public JobRequest request(String step) {
        Step s = steps.get(step);
        if (s == null) {
            throw new IllegalArgumentException("workflow '" + name + "' has no step " + Limits.quote(step));
        }
        return s.request();
    }

    /**
     * The steps parents first (Kahn's order, ties in the order they were added), after checking
     * that the workflow has steps, that every parent exists, and that there is no cycle.
     */
    List<Step> inDependencyOrder() {
        if (steps.isEmpty()) {
            throw new InvalidWorkflowException(Problem.EMPTY, List.of(),
                    "workflow '" + name + "' has no steps: add at least one before enqueueing it");
        }
        Map<String, Integer> waitingFor = new LinkedHashMap<>();
        Map<String, List<String>> children = new LinkedHashMap<>();
        for (Step s : steps.values()) {
            waitingFor.put(s.name(), s.parents().size());
            for (String parent : s.parents()) {
                if (!steps.containsKey(parent)) {
                    throw new InvalidWorkflowException(Problem.UNKNOWN_PARENT, List.of(s.name(), parent),
                            "step '" + s.name() + "' of workflow '" + name + "' depends on '" + parent
                                    + "', which the workflow does not have; its steps: " + steps.keySet());
                }
                children.computeIfAbsent(parent, p -> new ArrayList<>()).add(s.name());
            }
        }
        List<Step> order = new ArrayList<>(steps.size());
        List<String> ready = new ArrayList<>();
        waitingFor.forEach((step, n) -> {
            if (n == 0) {
                ready.add(step);
            }
        });
        for (int i = 0; i < ready.size(); i++) {
            String step = ready.get(i);
            order.add(steps.get(step));
            for (String child : children.getOrDefault(step, List.of())) {
                if (waitingFor.merge(child, -1, Integer::sum) == 0) {
                    ready.add(child);
                }
            }
        }
        if (order.size() < steps.size()) {
            List<String> cycle = findCycle(waitingFor);
            throw new InvalidWorkflowException(Problem.CYCLE, cycle, "steps of workflow '" + name
                    + "' depend on each other in a circle, so none of them could ever run: " + String.join(" -> ", cycle));
        }
        return order;
    }

    /** A cycle among the steps Kahn's algorithm could not order, as step names, the first repeated last. */
    private List<String> findCycle(Map<String, Integer> waitingFor) {
        // Every unordered step has an unordered parent: walk parents until a step repeats.
        Set<String> unordered = new LinkedHashSet<>();
        waitingFor.forEach((step, n) -> {
            if (n > 0) {
                unordered.add(step);
            }
        });
        List<String> path = new ArrayList<>();
        Map<String, Integer> seenAt = new LinkedHashMap<>();
        String at = unordered.iterator().next();
        while (!seenAt.containsKey(at)) {
            seenAt.put(at, path.size());
            path.add(at);
            String next = null;
            for (String parent : steps.get(at).parents()) {
                if (unordered.contains(parent)) {
                    next = parent;
                    break;
                }
            }
            at = next;
        }
        // The path walked child to parent; a cycle reads parent to child, so reverse it.
        List<String> cycle = new ArrayList<>(path.subList(seenAt.get(at), path.size()));
        Collections.reverse(cycle);
        cycle.add(cycle.get(0));
        return cycle;
    }

    private static void requireName(String value, String what) {
        if (value == null || !NAME.matcher(value).matches()) {
            throw new InvalidWorkflowException(Problem.INVALID_NAME, value == null ? List.of() : List.of(value),
                    "invalid " + what + " name " + Limits.quote(value)
                            + ": use 1-128 of letters, digits, '_', '-', '.', ':', starting with a letter");
        }
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("Workflow[" + name + ", " + policy + ", ");
        for (Step s : steps.values()) {
            out.append(s.name()).append(s.parents().isEmpty() ? "" : "<-" + s.parents()).append(' ');
        }
        return out.append(']').toString();
    }
}
