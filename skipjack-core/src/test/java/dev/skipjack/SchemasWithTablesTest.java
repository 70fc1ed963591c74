package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14: where Skipjack's tables are can be asked of the database's catalog, so a client (the
 * CLI) on a schema without them can say which schemas have them.
 */
class SchemasWithTablesTest extends EveryBackendTest {

    @Test
    void theMigratedSchemaIsListed() {
        Skipjack s = client(builder());
        assertThat(s.admin().schemasWithTables()).contains(schema);
    }

    @Test
    void tablesOfAnotherPrefixDoNotCount() {
        client(builder());
        Skipjack other = builder().tablePrefix("elsewhere_").build();
        assertThat(other.admin().schemasWithTables()).doesNotContain(schema);
        other.migrate();
        assertThat(other.admin().schemasWithTables()).contains(schema);
    }
}
