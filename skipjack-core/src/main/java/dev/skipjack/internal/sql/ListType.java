package dev.skipjack.internal.sql;

/**
 * The element type of a list bound as one parameter (a whole batch in one statement). PostgreSQL
 * binds an array of this type; the MySQL family binds JSON text its statements read with
 * {@code JSON_TABLE} using the same type.
 */
public enum ListType {
    BIGINT("bigint"),
    INTEGER("integer"),
    SMALLINT("smallint"),
    TEXT("text");

    private final String postgresName;

    ListType(String postgresName) {
        this.postgresName = postgresName;
    }

    /** The array element type name PostgreSQL's driver takes. */
    String postgresName() {
        return postgresName;
    }
}
