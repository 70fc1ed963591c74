package dev.skipjack.cli;

import dev.skipjack.MigrationScript;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Writes Skipjack's migrations as files a schema tool applies: one file per migration version, so
 * an upgrade adds files and never edits one already applied (both tools check that).
 */
enum MigrationExport {

    /** Flyway versioned migrations, {@code V001__skipjack_jobs.sql}, each the migration as one script. */
    FLYWAY {
        @Override
        List<Path> write(List<MigrationScript> scripts, Path dir) {
            List<Path> written = new ArrayList<>();
            for (MigrationScript script : scripts) {
                written.add(writeFile(dir.resolve(script.flywayFileName()), script.sql()));
            }
            return written;
        }
    },

    /**
     * Liquibase formatted SQL, one file per migration with one changeset per statement (Liquibase's
     * own splitting is off: it would cut SQLite's trigger bodies at their inner semicolons), and
     * {@code skipjack-changelog.xml} including the files in order, for the application's master
     * changelog to include.
     */
    LIQUIBASE {
        @Override
        List<Path> write(List<MigrationScript> scripts, Path dir) {
            List<Path> written = new ArrayList<>();
            StringBuilder index = new StringBuilder()
                    .append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                    .append("<!-- Skipjack's migrations, one file each, in order. Written by the skipjack migrate command (its export-dir option). -->\n")
                    .append("<databaseChangeLog xmlns=\"http://www.liquibase.org/xml/ns/dbchangelog\"\n")
                    .append("    xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n")
                    .append("    xsi:schemaLocation=\"http://www.liquibase.org/xml/ns/dbchangelog")
                    .append(" http://www.liquibase.org/xml/ns/dbchangelog/dbchangelog-latest.xsd\">\n");
            for (MigrationScript script : scripts) {
                String fileName = String.format(Locale.ROOT, "skipjack-V%03d-%s.sql", script.version(), script.name());
                StringBuilder sql = new StringBuilder("-- liquibase formatted sql\n");
                for (int i = 0; i < script.statements().size(); i++) {
                    sql.append("\n-- changeset skipjack:V").append(String.format(Locale.ROOT, "%03d", script.version()))
                            .append('-').append(i + 1).append(" splitStatements:false\n")
                            .append(script.statements().get(i).strip()).append('\n');
                }
                written.add(writeFile(dir.resolve(fileName), sql.toString()));
                index.append("  <include file=\"").append(fileName).append("\" relativeToChangelogFile=\"true\"/>\n");
            }
            index.append("</databaseChangeLog>\n");
            written.add(writeFile(dir.resolve("skipjack-changelog.xml"), index.toString()));
            return written;
        }
    };

    /** Writes the files for {@code scripts} into {@code dir} (created when missing); returns them. */
    abstract List<Path> write(List<MigrationScript> scripts, Path dir);

    static Optional<MigrationExport> of(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "flyway" -> Optional.of(FLYWAY);
            case "liquibase" -> Optional.of(LIQUIBASE);
            default -> Optional.empty();
        };
    }

    private static Path writeFile(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            return Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
