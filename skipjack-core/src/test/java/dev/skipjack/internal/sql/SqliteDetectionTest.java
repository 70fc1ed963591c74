package dev.skipjack.internal.sql;

import dev.skipjack.Backend;
import dev.skipjack.UnsupportedDatabaseException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** F-24 for SQLite: 3.35 (RETURNING) and later are accepted, older libraries refused with the reason. */
class SqliteDetectionTest {

    @Test
    void acceptsTheBundledLibraryAndTheOldestSupported() {
        assertThat(DatabaseDetector.sqlite("SQLite", "3.54.1").backend()).isEqualTo(Backend.SQLITE);
        assertThat(DatabaseDetector.sqlite("SQLite", "3.35.0").backend()).isEqualTo(Backend.SQLITE);
        assertThat(Dialect.of(Backend.SQLITE)).isSameAs(Dialect.SQLITE);
    }

    @Test
    void refusesALibraryWithoutReturning() {
        assertThatThrownBy(() -> DatabaseDetector.sqlite("SQLite", "3.34.1"))
                .isInstanceOf(UnsupportedDatabaseException.class)
                .hasMessageContaining("3.34.1")
                .hasMessageContaining("SQLite 3.35 or later")
                .hasMessageContaining("RETURNING");
    }
}
