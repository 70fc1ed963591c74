package dev.skipjack.lab.failover;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The failover run waits on the monitor's states: which node takes writes, when the cluster is ready again. */
class ClusterStateTest {

    private static ClusterState.Node node(String name, int port, String reported, String assigned) {
        return new ClusterState.Node(name, port, reported, assigned);
    }

    @Test
    void aPrimaryAndASecondaryAreStableAndThePrimaryTakesWrites() {
        ClusterState s = new ClusterState(List.of(node("node1", 5001, "primary", "primary"),
                node("node2", 5002, "secondary", "secondary")));

        assertThat(s.stable()).isTrue();
        assertThat(s.writable()).map(ClusterState.Node::name).contains("node1");
        assertThat(s.writableOtherThan(5001)).isEmpty();
        assertThat(s).hasToString("node1 primary, node2 secondary");
    }

    @Test
    void aPromotedNodeWithoutItsStandbyTakesWritesButIsNotStable() {
        // After a hard stop: the old primary is down, the new one runs without a synchronous standby.
        ClusterState s = new ClusterState(List.of(node("node1", 5001, "primary", "demoted"),
                node("node2", 5002, "wait_primary", "wait_primary")));

        assertThat(s.writable()).map(ClusterState.Node::name).contains("node2");
        assertThat(s.writableOtherThan(5001)).map(ClusterState.Node::port).contains(5002);
        assertThat(s.stable()).isFalse();
        assertThat(s).hasToString("node1 primary (assigned demoted), node2 wait_primary");
    }

    @Test
    void midFailoverNoNodeTakesWrites() {
        ClusterState s = new ClusterState(List.of(node("node1", 5001, "draining", "demoted"),
                node("node2", 5002, "prepare_promotion", "stop_replication")));

        assertThat(s.writable()).isEmpty();
        assertThat(s.stable()).isFalse();
    }

    @Test
    void aNodeNotYetWhereTheMonitorWantsItIsNotCounted() {
        ClusterState s = new ClusterState(List.of(node("node1", 5001, "primary", "primary"),
                node("node2", 5002, "catchingup", "secondary")));

        assertThat(s.stable()).isFalse();
        assertThat(new ClusterState(List.of(node("node1", 5001, "single", "single"))).stable()).isFalse();
    }
}
