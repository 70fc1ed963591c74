package dev.skipjack.lab.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 15's "flat within 15 %": throughput may fall and latency may rise by at most 15 %. */
class FlatVerdictTest {

    @Test
    void throughputIsFlatUnlessItFellByMoreThanFifteenPercent() {
        assertThat(FlatVerdict.throughputFlat(0.85)).isTrue();
        assertThat(FlatVerdict.throughputFlat(1.30)).isTrue();
        assertThat(FlatVerdict.throughputFlat(0.84)).isFalse();
    }

    @Test
    void latencyIsFlatUnlessItRoseByMoreThanFifteenPercent() {
        assertThat(FlatVerdict.latencyFlat(1.15)).isTrue();
        assertThat(FlatVerdict.latencyFlat(0.50)).isTrue();
        assertThat(FlatVerdict.latencyFlat(1.16)).isFalse();
    }
}
