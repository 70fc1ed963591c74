package dev.skipjack.examples.signup;

import com.zaxxer.hikari.HikariDataSource;
import dev.skipjack.embedded.EmbeddedDatabase;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/**
 * For trying the sample (profile {@code dev}) and for its tests: a throw-away PostgreSQL
 * ({@code skipjack-embedded}) as the application's DataSource, instead of {@code spring.datasource.url}.
 * A bean, so the context stops it after the workers stopped and the pool closed.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "signup.embedded-database", havingValue = "true")
class EmbeddedDatabaseConfiguration {

    @Bean(destroyMethod = "close")
    EmbeddedDatabase embeddedPostgres() {
        return EmbeddedDatabase.start();
    }

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(EmbeddedDatabase postgres) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(postgres.jdbcUrl());
        return dataSource;
    }
}
