package dev.skipjack.lab.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** bench --plots writes a real PNG of the figures, headless, whatever directory it is given. */
class BenchPlotTest {

    @Test
    void writesAPngOfTheGivenSizeThatDecodes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("not-yet/there/scale-throughput.png");

        new BenchPlot("Drain throughput against worker concurrency", "PostgreSQL 18.6; 2 cores; Java 17; 2026-11-25",
                "worker concurrency", "jobs/s", List.of("1", "8", "64", "256", "4 JVMs x 64"))
                .line("Skipjack", new double[] {40_000, 42_000, 41_000, 39_000, Double.NaN})
                .line("raw SQL ceiling", new double[] {50_000, 50_000, 50_000, 50_000, 50_000})
                .write(file);

        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image).as("a decodable PNG").isNotNull();
        assertThat(image.getWidth()).isEqualTo(BenchPlot.WIDTH);
        assertThat(image.getHeight()).isEqualTo(BenchPlot.HEIGHT);
    }

    @Test
    void refusesALineWithAValueMissingForAStep() {
        BenchPlot plot = new BenchPlot("t", "s", "x", "y", List.of("empty", "1M rows"));

        assertThatThrownBy(() -> plot.line("Skipjack", new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 values for 2 steps");
    }

    @Test
    void labelsTableSizesAsTheReportDoes() {
        assertThat(List.of(0L, 200_000L, 1_000_000L, 10_000_000L, 1_500L).stream().map(BenchPlot::rowsLabel))
                .containsExactly("empty", "200k rows", "1M rows", "10M rows", "1,500 rows");
    }
}
