package dev.skipjack.lab;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jars users get carry none of Skipjack's own test and lab equipment: no audit, benchmark or
 * chaos class or resource. That equipment lives in skipjack-audit and skipjack-lab, which are
 * never published. This module is built last in the reactor, so the published modules' jars are
 * in their target directories when this runs.
 */
class PublishedJarsTest {

    /** Names that belong to the audit (skipjack-audit) or to bench and chaos (skipjack-lab). */
    private static final Pattern LAB_OR_TEST = Pattern.compile("audit|bench|chaos", Pattern.CASE_INSENSITIVE);

    private static final Path ROOT = Path.of(System.getProperty("skipjack.root", ".."));
    private static final String VERSION = System.getProperty("skipjack.version", "0.1.0-SNAPSHOT");

    static Stream<Path> publishedJars() {
        return Stream.of(
                thinJar("skipjack-core"),
                thinJar("skipjack-dashboard"),
                thinJar("skipjack-embedded"),
                thinJar("skipjack-cli"),
                thinJar("skipjack-spring-boot-starter"),
                thinJar("skipjack-micrometer"),
                thinJar("skipjack-opentelemetry"),
                thinJar("skipjack-testing"),
                // What users download and run: the CLI with all its dependencies.
                ROOT.resolve("skipjack-cli/target/skipjack-cli.jar"));
    }

    private static Path thinJar(String module) {
        return ROOT.resolve(module + "/target/" + module + "-" + VERSION + ".jar");
    }

    @ParameterizedTest
    @MethodSource("publishedJars")
    void publishedJarCarriesNoAuditBenchOrChaosEntry(Path jar) throws IOException {
        assertThat(jar).as("built jar (run after 'package' of the whole reactor)").isRegularFile();
        assertThat(labOrTestEntries(jar)).as("audit, bench or chaos entries in " + jar).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"skipjack-core, dev.skipjack", "skipjack-dashboard, dev.skipjack.dashboard",
            "skipjack-embedded, dev.skipjack.embedded", "skipjack-cli, dev.skipjack.cli",
            "skipjack-spring-boot-starter, dev.skipjack.spring", "skipjack-micrometer, dev.skipjack.micrometer",
            "skipjack-opentelemetry, dev.skipjack.opentelemetry", "skipjack-testing, dev.skipjack.testing"})
    void publishedJarDeclaresItsAutomaticModuleName(String module, String moduleName) throws IOException {
        try (JarFile jar = new JarFile(thinJar(module).toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name")).isEqualTo(moduleName);
        }
    }

    /** The check itself must catch what it is there for, whatever the case or the place of the name. */
    @Test
    void aJarWithAuditBenchOrChaosEntriesIsCaught(@TempDir Path dir) throws IOException {
        Path jar = dir.resolve("leaky.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), new Manifest())) {
            for (String name : List.of("dev/skipjack/Skipjack.class", "dev/skipjack/internal/audit/AuditChecker.class",
                    "dev/skipjack/sql/postgres/audit_check_lost.sql", "dev/skipjack/cli/BenchCommand.class",
                    "dev/skipjack/cli/chaos/Worker.class")) {
                out.putNextEntry(new JarEntry(name)); // empty: only names are checked
                out.closeEntry();
            }
        }
        assertThat(labOrTestEntries(jar)).containsExactly("dev/skipjack/internal/audit/AuditChecker.class",
                "dev/skipjack/sql/postgres/audit_check_lost.sql", "dev/skipjack/cli/BenchCommand.class",
                "dev/skipjack/cli/chaos/Worker.class");
    }

    /** Entry names (classes and resources, with their paths) that match {@link #LAB_OR_TEST}. */
    private static List<String> labOrTestEntries(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(JarEntry::getName).filter(name -> LAB_OR_TEST.matcher(name).find()).toList();
        }
    }
}
