package io.granary.cli.output;

import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Rows under upper-case headers, in columns sized to their content and narrowed, widest first, until the table fits
 * a terminal of {@link #WIDTH} columns; what no longer fits a cell wraps (picocli's text table lays it out).
 */
public final class Table {

    public static final int WIDTH = 80;
    private static final int GAP = 2;
    private static final int NARROWEST = 6;

    private final List<String> headers;
    private final List<String[]> rows = new ArrayList<>();
    private int kept = -1;

    /** A table whose first row is {@code headers}; none for a list of key-value lines. */
    public Table(String... headers) {
        this.headers = Arrays.stream(headers).map(header -> header.toUpperCase(Locale.ROOT)).toList();
    }

    /** A column never narrowed (an id to copy whole); the others give way. */
    public Table keep(int column) {
        kept = column;
        return this;
    }

    public Table row(Object... values) {
        rows.add(Arrays.stream(values).map(value -> value == null ? "" : value.toString()).toArray(String[]::new));
        return this;
    }

    @Override
    public String toString() {
        List<String[]> all = new ArrayList<>();
        if (!headers.isEmpty()) {
            all.add(headers.toArray(String[]::new));
        }
        all.addAll(rows);
        if (all.isEmpty()) {
            return "";
        }
        int columns = all.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : all) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length() + (i < columns - 1 ? GAP : 0));
            }
        }
        while (Arrays.stream(widths).sum() > WIDTH) {
            int widest = kept == 0 ? 1 : 0;
            for (int i = 1; i < columns; i++) {
                widest = i != kept && widths[i] > widths[widest] ? i : widest;
            }
            if (widths[widest] <= NARROWEST) {
                break;
            }
            widths[widest]--;
        }
        Column[] layout = new Column[columns];
        for (int i = 0; i < columns; i++) {
            layout[i] = new Column(widths[i], 0, Column.Overflow.WRAP);
        }
        TextTable table = TextTable.forColumns(new ColorScheme.Builder(Ansi.OFF).build(), layout);
        all.forEach(table::addRowValues);
        return table.toString();
    }
}
