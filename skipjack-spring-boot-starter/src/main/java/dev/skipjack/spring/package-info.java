/**
 * Skipjack for Spring Boot: {@link dev.skipjack.spring.SkipjackAutoConfiguration} configures a
 * client from the application's DataSource and the {@code skipjack.*} properties, registers the
 * {@link dev.skipjack.spring.HandlesKind handler beans}, runs the workers on the context's
 * lifecycle, and offers {@link dev.skipjack.spring.SkipjackTemplate} to enqueue in the caller's
 * Spring transaction. See docs/spring-boot.md.
 */
package dev.skipjack.spring;
