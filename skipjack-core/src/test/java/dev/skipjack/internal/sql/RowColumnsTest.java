package dev.skipjack.internal.sql;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A result read with declared column types ({@link Row.Columns}) must have exactly those columns:
 * a statement that returns one more (added to the SQL file, not to its reader) or one fewer fails
 * the read with both counts named, instead of a column nobody reads or a read past the end.
 * Real SQLite results.
 */
class RowColumnsTest {

    private static final Row.Columns ID_AND_NAME = Row.columns(Row.ColumnType.BIGINT, Row.ColumnType.TEXT);

    private static List<Row> read(String query) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            return ID_AND_NAME.copy(rs);
        }
    }

    @Test
    void theDeclaredColumnsAreRead() throws Exception {
        List<Row> rows = read("SELECT 7, 'seven' UNION ALL SELECT 8, NULL");

        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).getLong(1)).isEqualTo(7L);
        assertThat(rows.get(0).getString(2)).isEqualTo("seven");
        assertThat(rows.get(1).getString(2)).isNull();
    }

    @Test
    void aColumnMoreThanDeclaredFailsTheRead() {
        assertThatThrownBy(() -> read("SELECT 7, 'seven', 'undeclared'"))
                .hasMessageContaining("returned 3 columns where its reader declares 2");
    }

    @Test
    void aColumnFewerFailsTooEvenWithoutRows() {
        assertThatThrownBy(() -> read("SELECT 7 WHERE 0"))
                .hasMessageContaining("returned 1 columns where its reader declares 2");
    }
}
