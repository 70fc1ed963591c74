package dev.skipjack.micrometer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;

import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The PostgreSQL these tests run against: the server {@code SKIPJACK_TEST_PG_URL} names, else one
 * embedded server per test JVM, as the core's tests do; one pool for the JVM, a schema per test.
 */
final class TestPostgres {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static HikariDataSource dataSource;

    private TestPostgres() {
    }

    static synchronized DataSource dataSource() {
        if (dataSource == null) {
            String url = System.getenv("SKIPJACK_TEST_PG_URL");
            if (url == null || url.isBlank()) {
                EmbeddedDatabase db = EmbeddedDatabase.start();
                Runtime.getRuntime().addShutdownHook(new Thread(db::close));
                url = db.jdbcUrl();
            }
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setMaximumPoolSize(20);
            dataSource = new HikariDataSource(config);
        }
        return dataSource;
    }

    /** A schema name no other test of this JVM uses (Skipjack's migration creates it). */
    static String freshSchema() {
        return "metrics_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    }
}
