package dev.skipjack.lab.failover;

import java.util.List;
import java.util.Optional;

/**
 * What pg_auto_failover's monitor says about the data nodes of the cluster
 * ({@code pgautofailover.current_state}): for each node the state it reported and the state the
 * monitor assigned it. The failover run waits on these, so the decisions are here, apart from the
 * processes, to be tested on their own.
 */
public record ClusterState(List<Node> nodes) {

    /** A data node: its name, port, the state it reported last and the state it was assigned. */
    public record Node(String name, int port, String reported, String assigned) {

        /** Reported and assigned agree: the node is where the monitor wants it. */
        boolean settledIn(String state) {
            return reported.equals(state) && assigned.equals(state);
        }

        /**
         * Takes writes now: {@code primary} with a synchronous standby, or {@code wait_primary},
         * a primary whose standby is gone or catching up (pg_auto_failover then turns synchronous
         * replication off rather than block writes).
         */
        boolean writable() {
            return settledIn("primary") || settledIn("wait_primary");
        }
    }

    public ClusterState {
        nodes = List.copyOf(nodes);
    }

    /** The node taking writes, if exactly one does. */
    public Optional<Node> writable() {
        List<Node> writers = nodes.stream().filter(Node::writable).toList();
        return writers.size() == 1 ? Optional.of(writers.get(0)) : Optional.empty();
    }

    /** The node taking writes, if it is another than the one on {@code oldPrimaryPort}. */
    public Optional<Node> writableOtherThan(int oldPrimaryPort) {
        return writable().filter(n -> n.port() != oldPrimaryPort);
    }

    /**
     * Ready for the next fault: one {@code primary} and every other node a {@code secondary}, so a
     * failover has somewhere to go and (in sync mode) commits wait for the standby again.
     */
    public boolean stable() {
        long primaries = nodes.stream().filter(n -> n.settledIn("primary")).count();
        long secondaries = nodes.stream().filter(n -> n.settledIn("secondary")).count();
        return nodes.size() >= 2 && primaries == 1 && primaries + secondaries == nodes.size();
    }

    /** The node named {@code name}. */
    public Node node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node '" + name + "' in " + this));
    }

    /** One line for the run's log: {@code node1 primary, node2 secondary (assigned catchingup)}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (Node n : nodes) {
            if (!s.isEmpty()) {
                s.append(", ");
            }
            s.append(n.name()).append(' ').append(n.reported());
            if (!n.assigned().equals(n.reported())) {
                s.append(" (assigned ").append(n.assigned()).append(')');
            }
        }
        return s.toString();
    }
}
