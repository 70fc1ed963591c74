package dev.skipjack.lab.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A line chart of a benchmark's figures written as a PNG ({@code bench --plots DIR}): one line per
 * series over labelled steps (concurrency 1, 8, 64, 256; table sizes empty, 1M, 10M), drawn by the
 * bench from the medians it reports, never by hand. The steps are categories, evenly spaced, so
 * sizes a decade apart read like a log axis and a step that is not a number (4 worker JVMs) fits.
 * The value axis starts at zero, so a flat line looks flat and a drop looks its real size.
 */
public final class BenchPlot {

    public static final int WIDTH = 900;
    public static final int HEIGHT = 500;

    static {
        // No display on a build machine or CI: draw off-screen.
        System.setProperty("java.awt.headless", "true");
    }

    private final String title;
    private final String subtitle;
    private final String stepLabel;
    private final String valueLabel;
    private final List<String> steps;
    private final Map<String, double[]> series = new LinkedHashMap<>();

    /** {@code subtitle} names the machine and the date: a figure is only as good as where it was measured. */
    public BenchPlot(String title, String subtitle, String stepLabel, String valueLabel, List<String> steps) {
        this.title = title;
        this.subtitle = subtitle;
        this.stepLabel = stepLabel;
        this.valueLabel = valueLabel;
        this.steps = List.copyOf(steps);
    }

    /** Adds a line: one value per step, in step order ({@code NaN} leaves a step out). */
    public BenchPlot line(String name, double[] values) {
        if (values.length != steps.size()) {
            throw new IllegalArgumentException(name + ": " + values.length + " values for " + steps.size() + " steps");
        }
        series.put(name, values.clone());
        return this;
    }

    /** Writes the chart to {@code file} (its directory created if missing) as a {@link #WIDTH} x {@link #HEIGHT} PNG. */
    public Path write(Path file) throws IOException {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (Map.Entry<String, double[]> line : series.entrySet()) {
            for (int i = 0; i < steps.size(); i++) {
                double v = line.getValue()[i];
                if (!Double.isNaN(v)) {
                    dataset.addValue(v, line.getKey(), steps.get(i));
                }
            }
        }
        JFreeChart chart = ChartFactory.createLineChart(title, stepLabel, valueLabel, dataset,
                PlotOrientation.VERTICAL, true, false, false);
        chart.addSubtitle(new TextTitle(subtitle, new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(true);
        LineAndShapeRenderer renderer = (LineAndShapeRenderer) plot.getRenderer();
        renderer.setDefaultShapesVisible(true);
        List<Color> colors = new ArrayList<>(List.of(new Color(0x1f77b4), new Color(0x7f7f7f), new Color(0xd62728),
                new Color(0x2ca02c)));
        for (int s = 0; s < series.size(); s++) {
            renderer.setSeriesPaint(s, colors.get(s % colors.size()));
            renderer.setSeriesStroke(s, new BasicStroke(2.5f));
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        return file;
    }

    /** {@code 0} → {@code empty}, {@code 1000000} → {@code 1M rows}: a table size as a step label. */
    public static String rowsLabel(long rows) {
        if (rows == 0) {
            return "empty";
        }
        if (rows % 1_000_000 == 0) {
            return rows / 1_000_000 + "M rows";
        }
        if (rows % 1_000 == 0) {
            return rows / 1_000 + "k rows";
        }
        return String.format(Locale.ROOT, "%,d rows", rows);
    }
}
