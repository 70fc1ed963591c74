package dev.skipjack;

import dev.skipjack.internal.sql.Dialect;
import dev.skipjack.internal.sql.ListType;
import dev.skipjack.support.EveryBackendTest;
import dev.skipjack.support.TestBackend;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A list bound as one parameter (a batch's args, ids, attempts) reaches the database element for
 * element, in order, whatever its text holds: quotes, backslashes, line breaks and other control
 * characters, characters outside the Basic Multilingual Plane, JSON text, nulls. PostgreSQL binds
 * an array; MariaDB and SQLite a JSON array their statements read with JSON_TABLE and json_each.
 */
class ListParameterTest extends EveryBackendTest {

    private static final List<String> AWKWARD_TEXTS = Arrays.asList(
            "plain", "", "say \"hi\"", "back\\slash", "line\nbreak\r\ttab", "bell\u0007 nul\u0000 unit\u001f",
            "caf\u00e9 \u4e2d\u6587", "\ud83d\ude80 rocket", "{\"n\": [1, \"two\"]}", "</script>", null, "null");

    private List<String> roundTrip(ListType type, List<?> values) throws SQLException {
        String read = switch (backend()) {
            case POSTGRESQL -> "SELECT v::text FROM unnest(?::" + (type == ListType.TEXT ? "text" : "bigint")
                    + "[]) WITH ORDINALITY AS t (v, i) ORDER BY i";
            case SQLITE -> "SELECT CAST(value AS TEXT) FROM json_each(?) ORDER BY key";
            default -> "SELECT v FROM JSON_TABLE(?, '$[*]' COLUMNS (i FOR ORDINALITY, v "
                    + (type == ListType.TEXT ? "TEXT" : "BIGINT") + " PATH '$')) AS t ORDER BY i";
        };
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(read)) {
            Dialect.of(backend().backend()).setList(ps, 1, type, values);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    @Test
    void textElementsArriveAsTheyWereInOrder() throws SQLException {
        List<String> texts = AWKWARD_TEXTS;
        if (backend() == TestBackend.POSTGRESQL) {
            // PostgreSQL's text cannot hold NUL at all; the other characters must still arrive.
            texts = texts.stream().map(t -> t == null ? null : t.replace("\u0000", "")).toList();
        }
        assertThat(roundTrip(ListType.TEXT, texts)).containsExactlyElementsOf(texts);
    }

    @Test
    void integerElementsArriveAsNumbersInOrder() throws SQLException {
        List<Long> ids = Arrays.asList(Long.MAX_VALUE, -1L, 0L, null, Long.MIN_VALUE, 42L);
        assertThat(roundTrip(ListType.BIGINT, ids))
                .containsExactly(String.valueOf(Long.MAX_VALUE), "-1", "0", null, String.valueOf(Long.MIN_VALUE), "42");
    }
}
