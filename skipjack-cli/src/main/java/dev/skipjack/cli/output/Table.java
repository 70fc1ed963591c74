package dev.skipjack.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table that fits the terminal: columns are as wide as their widest cell, and when
 * the row is too wide the last column (the free-text one: args, error) is cut with an ellipsis.
 * Control characters in cells are shown as spaces, so job content cannot move the cursor.
 */
public final class Table {

    /** Width assumed when {@code COLUMNS} is not set (output to a pipe or file). */
    public static final int DEFAULT_WIDTH = 120;

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();
    private final boolean[] rightAligned;

    public Table(String... headers) {
        this.headers = List.of(headers);
        this.rightAligned = new boolean[headers.length];
    }

    /** Right-aligns column {@code index} (numbers). */
    public Table right(int... indexes) {
        for (int i : indexes) {
            rightAligned[i] = true;
        }
        return this;
    }

    /** {@code first} followed by {@code rest}: a row with a leading column (the shard, over shards). */
    public static Object[] prepend(Object first, Object... rest) {
        Object[] row = new Object[rest.length + 1];
        row[0] = first;
        System.arraycopy(rest, 0, row, 1, rest.length);
        return row;
    }

    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + headers.size() + " columns");
        }
        List<String> row = new ArrayList<>();
        for (Object c : cells) {
            row.add(clean(c == null ? "" : c.toString()));
        }
        rows.add(row);
        return this;
    }

    public int size() {
        return rows.size();
    }

    /** The terminal width from {@code COLUMNS}, else {@link #DEFAULT_WIDTH}. */
    public static int terminalWidth() {
        try {
            String columns = System.getenv("COLUMNS");
            return columns == null ? DEFAULT_WIDTH : Math.max(40, Integer.parseInt(columns.trim()));
        } catch (NumberFormatException e) {
            return DEFAULT_WIDTH;
        }
    }

    public void print(PrintWriter out, int maxWidth) {
        int n = headers.size();
        int[] widths = new int[n];
        for (int i = 0; i < n; i++) {
            widths[i] = headers.get(i).length();
            for (List<String> r : rows) {
                widths[i] = Math.max(widths[i], r.get(i).length());
            }
        }
        int fixed = 0;
        for (int i = 0; i < n - 1; i++) {
            fixed += widths[i] + 2;
        }
        widths[n - 1] = Math.max(Math.min(widths[n - 1], maxWidth - fixed), Math.min(10, widths[n - 1]));
        out.println(line(headers, widths));
        for (List<String> r : rows) {
            out.println(line(r, widths));
        }
        out.flush();
    }

    private String line(List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cut(cells.get(i), widths[i]);
            boolean last = i == cells.size() - 1;
            if (rightAligned[i]) {
                b.append(" ".repeat(widths[i] - cell.length())).append(cell);
            } else {
                b.append(cell);
                if (!last) {
                    b.append(" ".repeat(widths[i] - cell.length()));
                }
            }
            if (!last) {
                b.append("  ");
            }
        }
        return b.toString();
    }

    private static String cut(String s, int width) {
        return s.length() <= width ? s : s.substring(0, Math.max(0, width - 1)) + "…";
    }

    /** Control characters (newlines, escapes) become spaces. */
    public static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> b.appendCodePoint(Character.isISOControl(cp) ? ' ' : cp));
        return b.toString();
    }
}
